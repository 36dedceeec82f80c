/*
 * log.h - fabricd's log: one line per event, with time and level.
 */
#ifndef SM_LOG_H
#define SM_LOG_H

#include <stdbool.h>
#include <stdio.h>

enum log_level { LOG_ERROR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

void log_set_level(enum log_level level);
/* Sends the log to path (appending) instead of stderr; -1 with errno on failure. */
int log_set_file(const char *path);
/* Opens the log file again by its path (after logrotate moved it); -1 with errno, the old one kept. */
int log_reopen(void);
/* With no log file and stderr systemd's journal: "<N>" priorities instead of stamps. True if so. */
bool log_to_journal_if_there(void);
/* Parses "error", "warn", "info" or "debug"; -1 if unknown. */
int log_level_parse(const char *text);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
