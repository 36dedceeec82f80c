/*
 * plan_read.h - "fabricctl plan check DIR": a RoCE plan proven again from
 * its per-switch JSON files alone.
 */
#ifndef CLI_PLAN_READ_H
#define CLI_PLAN_READ_H

/* Reads the *.json files of dir, checks them and prints the verdict; an EXIT_* code. */
int plan_check(const char *dir);

#endif
