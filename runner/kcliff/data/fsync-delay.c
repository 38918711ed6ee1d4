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
 *   KCLIFF_WRITE_BYTES_PER_S   the disk's write throughput: bytes written to those files (write,
 *                              pwrite, writev, pwritev) pass a token bucket at this rate, the
 *                              writer sleeping out its share after the real call, so a broker's log
 *                              grows no faster than a disk of that throughput takes it (unset or <= 0:
 *                              no cap). One bucket per process: per broker, as one broker has one disk.
 * A file descriptor's path comes from /proc/self/fd/N, read once per descriptor (close() forgets it).
 * Nothing is started, nothing is written.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_DIRS 32
#define NS_PER_S 1000000000L

#define FD_CACHE 65536
/* The bucket's depth: the larger of 20 ms of the rate and 1 MiB, the largest record batch a broker
 * takes by default, so a write under the cap costs no sleep, as on a disk of that throughput; a rig's
 * disk is scaled tens of times slower, and an operation's time must not be (docs/profiles.md). */
#define BURST_NS 20000000L
#define BURST_BYTES 1048576.0

typedef int (*sync_call)(int);

static long long delay_ns;
static char *delayed_dirs[MAX_DIRS];
static int delayed_count;
static char *spared_dirs[MAX_DIRS];
static int spared_count;
static double write_ns_per_byte; /* 0: writes are not capped */
static signed char fd_kind[FD_CACHE]; /* 0 unknown, 1 under a delayed directory, -1 not */
static long long bucket_until; /* when the bytes written so far have drained, monotonic ns */
static pthread_mutex_t bucket_lock = PTHREAD_MUTEX_INITIALIZER;

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
    const char *rate = getenv("KCLIFF_WRITE_BYTES_PER_S");
    double bytes_per_s = rate ? strtod(rate, NULL) : 0;
    write_ns_per_byte = bytes_per_s > 0 ? 1e9 / bytes_per_s : 0;
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

/* Whether `fd`'s file lies under a delayed directory, not a spared one (cached per descriptor). */
static int is_emulated(int fd) {
    if (delayed_count == 0 || fd < 0)
        return 0;
    if (fd < FD_CACHE && fd_kind[fd] != 0)
        return fd_kind[fd] > 0;
    char link[64];
    char path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = readlink(link, path, sizeof path - 1);
    if (len <= 0)
        return 0;
    path[len] = '\0';
    int emulated = inside_any(path, delayed_dirs, delayed_count) && !inside_any(path, spared_dirs, spared_count);
    if (fd < FD_CACHE)
        fd_kind[fd] = emulated ? 1 : -1;
    return emulated;
}

static int is_delayed(int fd) {
    return delay_ns > 0 && is_emulated(fd);
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

static long long now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * NS_PER_S + now.tv_nsec;
}

/* Take `bytes` from the bucket; sleep until all but the bucket's depth of what is queued has drained. */
static void pace(ssize_t bytes) {
    if (bytes <= 0)
        return;
    pthread_mutex_lock(&bucket_lock);
    long long now = now_ns();
    long long start = bucket_until > now ? bucket_until : now;
    bucket_until = start + (long long)(bytes * write_ns_per_byte);
    long long depth = (long long)(BURST_BYTES * write_ns_per_byte);
    long long wake = bucket_until - (depth > BURST_NS ? depth : BURST_NS);
    pthread_mutex_unlock(&bucket_lock);
    if (wake <= now)
        return;
    struct timespec until = {(time_t)(wake / NS_PER_S), (long)(wake % NS_PER_S)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR) {
    }
}

static void *real_call(void **slot, const char *name) {
    if (*slot == NULL)
        *slot = dlsym(RTLD_NEXT, name);
    return *slot;
}

/* After a real write of `result` bytes to `fd`: its share of the disk's time, errno kept. */
static ssize_t paced(int fd, ssize_t result) {
    if (write_ns_per_byte > 0 && result > 0 && is_emulated(fd)) {
        int saved = errno;
        pace(result);
        errno = saved;
    }
    return result;
}

ssize_t write(int fd, const void *buf, size_t count) {
    static void *real;
    ssize_t (*call)(int, const void *, size_t) = (ssize_t(*)(int, const void *, size_t))real_call(&real, "write");
    return paced(fd, call(fd, buf, count));
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
    static void *real;
    ssize_t (*call)(int, const void *, size_t, off_t) =
        (ssize_t(*)(int, const void *, size_t, off_t))real_call(&real, "pwrite");
    return paced(fd, call(fd, buf, count, offset));
}

#ifdef __GLIBC__ /* musl's pwrite64 is pwrite itself */
ssize_t pwrite64(int fd, const void *buf, size_t count, off64_t offset) {
    static void *real;
    ssize_t (*call)(int, const void *, size_t, off64_t) =
        (ssize_t(*)(int, const void *, size_t, off64_t))real_call(&real, "pwrite64");
    return paced(fd, call(fd, buf, count, offset));
}
#endif

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
    static void *real;
    ssize_t (*call)(int, const struct iovec *, int) =
        (ssize_t(*)(int, const struct iovec *, int))real_call(&real, "writev");
    return paced(fd, call(fd, iov, iovcnt));
}

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset) {
    static void *real;
    ssize_t (*call)(int, const struct iovec *, int, off_t) =
        (ssize_t(*)(int, const struct iovec *, int, off_t))real_call(&real, "pwritev");
    return paced(fd, call(fd, iov, iovcnt, offset));
}

/* A closed descriptor's number is reused for another file: forget what it was. */
int close(int fd) {
    static void *real;
    int (*call)(int) = (int (*)(int))real_call(&real, "close");
    if (fd >= 0 && fd < FD_CACHE)
        fd_kind[fd] = 0;
    return call(fd);
}
