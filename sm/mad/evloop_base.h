/*
 * evloop_base.h - the libevent base behind an evloop, for the few files
 * of sm/mad/ that wrap more of libevent (http.c). Nothing else includes it.
 */
#ifndef SM_MAD_EVLOOP_BASE_H
#define SM_MAD_EVLOOP_BASE_H

#include <event2/event.h>

#include "sm/mad/evloop.h"

struct event_base *evl_event_base(struct evloop *l);

#endif
