/*
 * kcliff's storage emulation (--fsync-delay-ms): loaded with LD_PRELOAD into a broker JVM, it makes
 * every fsync() and fdatasync() of a file under the brokers' data directories take at least
 * KCLIFF_FSYNC_DELAY_MS milliseconds, so a rig whose disk syncs in microseconds shows what a
 * production disk shows. The JVM's FileChannel.force(true/false) calls these two through libc, so
 * this needs neither root nor FUSE. The real call runs first; the shim then sleeps out the rest of
 * the delay, so a disk already slower than the delay is not slowed further.
 *
 * Environment, read once when the library loads:
 *   KCLIFF_FSYNC_DELAY_MS      the least time each matching call takes (decimal milliseconds; unset,
 *                              malformed or <= 0: no delay at all)
 *   KCLIFF_FSYNC_DELAY_DIRS    ':'-separated absolute, symlink-free directories whose files are
 *                              delayed (none: nothing is delayed)
 *   KCLIFF_FSYNC_DELAY_EXCEPT  ':'-separated directories inside those that are left alone (kcliff
 *                              names the KRaft metadata log here)
 * A file descriptor's path comes from /proc/self/fd/N. Nothing is started, nothing is written.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_DIRS 32
#define NS_PER_S 1000000000L

typedef int (*sync_call)(int);

static long long delay_ns;
static char *delayed_dirs[MAX_DIRS];
static int delayed_count;
static char *spared_dirs[MAX_DIRS];
static int spared_count;

/* Split a ':'-separated list of directories into `out` (trailing slashes dropped); the count. */
static int read_dirs(const char *text, char **out) {
    int count = 0;
    if (text == NULL)
        return 0;
    char *copy = strdup(text);
    if (copy == NULL)
        return 0;
    char *rest = copy;
    char *item;
    while ((item = strsep(&rest, ":")) != NULL && count < MAX_DIRS) {
        size_t len = strlen(item);
        while (len > 1 && item[len - 1] == '/')
            item[--len] = '\0';
        if (len > 0)
            out[count++] = item;
    }
    return count;
}

/* The delay in nanoseconds from KCLIFF_FSYNC_DELAY_MS; 0 when unset, malformed or not positive. */
static long long read_delay(const char *text) {
    if (text == NULL || *text == '\0')
        return 0;
    char *end;
    double ms = strtod(text, &end);
    if (*end != '\0' || !(ms > 0) || ms > 3600e3)
        return 0;
    return (long long)(ms * 1e6);
}

__attribute__((constructor)) static void configure(void) {
    delay_ns = read_delay(getenv("KCLIFF_FSYNC_DELAY_MS"));
    delayed_count = read_dirs(getenv("KCLIFF_FSYNC_DELAY_DIRS"), delayed_dirs);
    spared_count = read_dirs(getenv("KCLIFF_FSYNC_DELAY_EXCEPT"), spared_dirs);
}

/* Whether `path` is `dir` or lies inside it (a whole-component prefix: /a/b is not inside /a/bc). */
static int inside(const char *path, const char *dir) {
    size_t len = strlen(dir);
    return strncmp(path, dir, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

static int inside_any(const char *path, char *const *dirs, int count) {
    for (int i = 0; i < count; i++)
        if (inside(path, dirs[i]))
            return 1;
    return 0;
}

/* Whether a sync of `fd` is to be delayed: its file lies under a delayed directory, not a spared one. */
static int is_delayed(int fd) {
    if (delay_ns <= 0 || delayed_count == 0)
        return 0;
    char link[64];
    char path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = readlink(link, path, sizeof path - 1);
    if (len <= 0)
        return 0;
    path[len] = '\0';
    return inside_any(path, delayed_dirs, delayed_count) && !inside_any(path, spared_dirs, spared_count);
}

/* Sleep until `start` + the delay on the monotonic clock, through any signal that interrupts it. */
static void sleep_out(const struct timespec *start) {
    struct timespec until = *start;
    long long ns = until.tv_nsec + delay_ns;
    until.tv_sec += (time_t)(ns / NS_PER_S);
    until.tv_nsec = (long)(ns % NS_PER_S);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR) {
    }
}

/* The real call, then the rest of the delay when `fd` is delayed; the real call's result and errno. */
static int sync_at_least(int fd, const char *name, sync_call *real) {
    if (*real == NULL)
        *real = (sync_call)dlsym(RTLD_NEXT, name);
    if (*real == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (!is_delayed(fd))
        return (*real)(fd);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int result = (*real)(fd);
    int saved = errno;
    sleep_out(&start);
    errno = saved;
    return result;
}

int fsync(int fd) {
    static sync_call real;
    return sync_at_least(fd, "fsync", &real);
}

int fdatasync(int fd) {
    static sync_call real;
    return sync_at_least(fd, "fdatasync", &real);
}
