/*
 * rmpp_agents.c - which agents the kernel does RMPP for, for the shim:
 * part of librmpp-shim.so (rmpp_shim.c).
 *
 * A host's kernel reassembles an RMPP transfer only for an agent that
 * registered with an RMPP version: OpenSM's SA agent does (the kernel
 * acknowledges its requests' segments and hands it the request whole);
 * fabricd's does not (it does RMPP itself and gets every segment as it
 * comes). This file notes each registration's rmpp_version as it goes
 * through umad2sim's ioctl(), so that the shim's read() treats a
 * request's segments as the kernel would for the agent they reach.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <infiniband/umad.h>

#include "rmpp_shim.h"

#define MAX_AGENTS 64

/* The registrations of rdma/ib_user_mad.h, whose struct ib_user_mad clashes with umad.h's */
struct reg_req {
	uint32_t id;
	uint32_t method_mask[4];
	uint8_t qpn, mgmt_class, mgmt_class_version, oui[3];
	uint8_t rmpp_version;
};
struct reg_req2 {
	uint32_t id;
	uint32_t qpn;
	uint8_t mgmt_class, mgmt_class_version;
	uint16_t res;
	uint32_t flags;
	uint64_t method_mask[2];
	uint32_t oui;
	uint8_t rmpp_version;
	uint8_t reserved[3];
};

static struct {
	struct {
		int fd;
		uint32_t id;
	} a[MAX_AGENTS];
	unsigned n;
	pthread_mutex_t lock;
} rmpp_agents = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void note_agent(int fd, uint32_t id, uint8_t rmpp_version)
{
	pthread_mutex_lock(&rmpp_agents.lock);
	for (unsigned i = 0; i < rmpp_agents.n; i++)
		if (rmpp_agents.a[i].fd == fd && rmpp_agents.a[i].id == id)
			rmpp_agents.a[i--] = rmpp_agents.a[--rmpp_agents.n];	/* an id used again */
	if (rmpp_version && rmpp_agents.n < MAX_AGENTS) {
		rmpp_agents.a[rmpp_agents.n].fd = fd;
		rmpp_agents.a[rmpp_agents.n++].id = id;
	}
	pthread_mutex_unlock(&rmpp_agents.lock);
}

bool shim_rmpp_agent(int fd, uint32_t id)
{
	bool found = false;
	pthread_mutex_lock(&rmpp_agents.lock);
	for (unsigned i = 0; i < rmpp_agents.n && !found; i++)
		found = rmpp_agents.a[i].fd == fd && rmpp_agents.a[i].id == id;
	pthread_mutex_unlock(&rmpp_agents.lock);
	return found;
}

int ioctl(int fd, unsigned long request, ...)
{
	static int (*next_ioctl)(int, unsigned long, ...);
	if (!next_ioctl)
		next_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	int rc = next_ioctl(fd, request, arg);
	if (rc == 0 && request == _IOWR(IB_IOCTL_MAGIC, 1, struct reg_req)) {
		const struct reg_req *r = arg;
		note_agent(fd, r->id, r->rmpp_version);
	} else if (rc == 0 && request == _IOWR(IB_IOCTL_MAGIC, 4, struct reg_req2)) {
		const struct reg_req2 *r = arg;
		note_agent(fd, r->id, r->rmpp_version);
	}
	return rc;
}
