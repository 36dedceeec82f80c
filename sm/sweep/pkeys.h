/*
 * pkeys.h - programming partitions: P_Key tables on CA ports and on the
 * switch ports facing them, and partition enforcement on those switch
 * ports where the switch can enforce.
 */
#ifndef SM_PKEYS_H
#define SM_PKEYS_H

#include "db/db.h"
#include "sm/sweep/configure.h"
#include "sm/partition.h"

/*
 * Sends PKeyTable Sets (every block the port's capacity holds) and the
 * enforcement PortInfo Sets. A CA port linked to the same switch port as
 * in prev (the published sweep's fabric, whose nodes hold what it
 * programmed, with the same partitions), both nodes showing no sign of a
 * reset and neither one its sweep lost a Set to (lost), is skipped. r->sent
 * counts the Sets.
 */
int pkeys_program(struct mad_port *mp, struct fabric *f, const struct partitions *ps, const struct fabric *prev,
		  const struct partitions *prev_ps, const struct lost_set *lost, cfg_done_fn done, void *arg);

/*
 * The partitions and per-port memberships pkeys_program gives f, for the
 * database: arrays in *out to release with pkeys_membership_free. -1 on
 * allocation failure.
 */
int pkeys_membership(const struct fabric *f, const struct partitions *ps, struct db_partitions *out);
void pkeys_membership_free(struct db_partitions *out);
/*
 * The P_Key table pkeys_program gives CA port (n, p), as many entries as
 * the port holds (*cap, at most PART_MAX + 1 keys, the rest 0); how many
 * keys it has. For the SA's P_KeyTableRecords.
 */
unsigned pkeys_port_table(const struct node *n, unsigned p, const struct partitions *ps, uint16_t *keys, unsigned *cap);
/*
 * The same for switch port (sw, port): the table of the CA it faces, cut
 * to the switch's PartitionEnforcementCap; *cap 0 (and no keys) for a
 * port pkeys_program leaves alone (facing a switch, or no enforcement).
 */
unsigned pkeys_switch_port_table(const struct node *sw, unsigned port, const struct partitions *ps, uint16_t *keys,
				 unsigned *cap);
/*
 * Calls fn for each P_Key block pkeys_program gives n (a CA's linked
 * ports; a switch's ports facing a CA, where it enforces), in port order,
 * from the from-th on (those before are counted, not built), until fn
 * returns false. Returns how many blocks it went through, the one fn
 * stopped at included: with from SIZE_MAX, how many n has.
 */
size_t pkeys_each_table(const struct node *n, const struct partitions *ps, size_t from, port_table_fn fn, void *arg);

#endif
