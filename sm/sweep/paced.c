/*
 * DOC: Gets asked a few at a time
 *
 * The owner starts with in_flight 1 (a hold while it sets out) and calls
 * paced_answered once to let the first Gets go; each answer then calls
 * it again, which asks for more through ask_more until limit Gets are
 * out or none is left. The last answer ends the read (true). A send that
 * fails inside mad_send_dr may answer at once, within the loop: that
 * answer only counts, and the loop goes on.
 */
#include "sm/sweep/paced.h"

#include "sm/smnode.h"

bool paced_get(struct paced *p, struct mad_port *mp, const struct node *n, uint8_t port, ib_net16_t attr,
	       uint32_t mod, mad_done_fn done, void *ctx)
{
	p->in_flight++;	/* before sending: the answer may come inside mad_send_dr */
	if (sm_node_get(mp, n, port, attr, mod, done, ctx) == 0)
		return true;
	p->in_flight--;
	return false;
}

bool paced_answered(struct paced *p)
{
	p->in_flight--;
	if (p->asking)
		return false;
	p->asking = true;
	while (p->in_flight < p->limit && p->ask_more(p->owner))
		;
	p->asking = false;
	return p->in_flight == 0;
}
