/*
 * DOC: log
 *
 * A line-buffered log to stderr or a file: "2026-12-02T12:00:00.123 info msg".
 * A file is reopened on request (SIGUSR1, SIGHUP), so logrotate can move
 * it away. When stderr is systemd's journal (JOURNAL_STREAM names it),
 * each line is "<N>msg" instead: the journal keeps the time, and N, the
 * syslog priority, becomes the entry's (sd-daemon(3)).
 */
#include "sm/log.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

/* The log is the process's one sink, set up at start; only these change it. */
static enum log_level current = LOG_INFO;
static FILE *sink;
static char sink_path[PATH_MAX];
static bool journal;

static const char *names[] = { "error", "warn", "info", "debug" };

void log_set_level(enum log_level level)
{
	current = level;
}

int log_set_file(const char *path)
{
	FILE *f = fopen(path, "a");
	if (!f)
		return -1;
	setvbuf(f, NULL, _IOLBF, 0);
	if (sink)
		fclose(sink);
	sink = f;
	if (path != sink_path)
		snprintf(sink_path, sizeof(sink_path), "%s", path);
	return 0;
}

int log_reopen(void)
{
	return sink ? log_set_file(sink_path) : 0;
}

bool log_to_journal_if_there(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	journal = !sink && js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && fstat(2, &st) == 0 &&
		  (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
	return journal;
}

int log_level_parse(const char *text)
{
	for (int i = 0; i <= LOG_DEBUG; i++)
		if (strcmp(text, names[i]) == 0)
			return i;
	return -1;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	if (level > current)
		return;
	FILE *out = sink ? sink : stderr;
	struct timeval tv;
	struct tm tm;
	char stamp[32];
	va_list ap;

	static const int priority[] = { 3, 4, 6, 7 };	/* err, warning, info, debug */
	if (journal && !sink) {
		fprintf(out, "<%d>", priority[level]);
	} else {
		gettimeofday(&tv, NULL);
		localtime_r(&tv.tv_sec, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(out, "%s.%03ld %s ", stamp, (long)(tv.tv_usec / 1000), names[level]);
	}
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	fflush(out);
}
