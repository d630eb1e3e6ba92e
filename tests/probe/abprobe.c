// abprobe: tries ONE forbidden thing and says what happened, for the security and integration suites.
//
// It is copied into a sandbox's /workspace and run there (static, no deps), like crun's init probe
// or bubblewrap's try-syscall.c. Shells cannot issue raw syscalls, so every seccomp denial of
// docs/contract.md §2 is checked through here. The probe judges nothing: the bash test decides.
//
//   exit 0  the operation succeeded          prints "OK <detail>"
//   exit 1  the operation failed             prints "FAIL errno=<NAME> <detail>"
//   exit 2  usage error / probe setup failed prints "USAGE ..." or "SETUP ..."
//   x32 and int80 expect to be killed by SIGSYS; if the syscall returns they print and exit 0.
//
// Usage: abprobe SUBCOMMAND [ARG...]   (abprobe help lists them)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <linux/if_tun.h>
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef AF_ALG
#define AF_ALG 38
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#define X32_SYSCALL_BIT 0x40000000UL

// ---- result helpers -------------------------------------------------------------------------

static int ok(const char* detail) {
  printf("OK %s\n", detail);
  return 0;
}

// Reports the current errno; always returns 1 so callers can `return fail(...)`.
static int fail(const char* detail) {
  int e = errno;
  const char* name = strerrorname_np(e);
  printf("FAIL errno=%s(%d) %s\n", name ? name : "?", e, detail);
  return 1;
}

static int usage(const char* msg) {
  printf("USAGE %s\n", msg);
  return 2;
}

static int setup_failed(const char* what) {
  printf("SETUP %s: %s\n", what, strerror(errno));
  return 2;
}

// 0/-1 syscall result -> exit status and one line.
static int report(long rc, const char* what) { return rc < 0 ? fail(what) : ok(what); }

static long arg_long(int argc, char** argv, int i, long dflt) {
  return argc > i ? strtol(argv[i], NULL, 0) : dflt;
}

static const char* arg_str(int argc, char** argv, int i, const char* dflt) {
  return argc > i ? argv[i] : dflt;
}

// Reaps a child created by a raw clone: the parent only wants to know the clone worked.
static int reap_clone_child(long pid, const char* what) {
  if (pid < 0) return fail(what);
  if (pid == 0) _exit(0);
  waitpid((pid_t)pid, NULL, __WALL);
  return ok(what);
}

// ---- namespaces, mounts, process access --------------------------------------------------------

static int ns_flag(const char* name) {
  static const struct { const char* name; int flag; } kFlags[] = {
      {"user", CLONE_NEWUSER}, {"mnt", CLONE_NEWNS},    {"pid", CLONE_NEWPID},
      {"net", CLONE_NEWNET},   {"ipc", CLONE_NEWIPC},   {"uts", CLONE_NEWUTS},
      {"cgroup", CLONE_NEWCGROUP}, {"time", CLONE_NEWTIME},
  };
  for (size_t i = 0; i < sizeof kFlags / sizeof kFlags[0]; i++)
    if (strcmp(kFlags[i].name, name) == 0) return kFlags[i].flag;
  return 0;
}

static int cmd_unshare(int argc, char** argv) {
  int flag = ns_flag(arg_str(argc, argv, 2, ""));
  if (!flag) return usage("unshare user|mnt|pid|net|ipc|uts|cgroup|time");
  return report(unshare(flag), argv[2]);
}

// A raw clone(2) with a namespace flag: the libc wrapper is not what an attacker would use.
static int cmd_clone(int argc, char** argv) {
  int flag = ns_flag(arg_str(argc, argv, 2, "user"));
  if (!flag) return usage("clone user|mnt|pid|net|ipc|uts|cgroup");
  long pid = syscall(SYS_clone, (unsigned long)flag | SIGCHLD, 0L, NULL, NULL, 0L);
  return reap_clone_child(pid, "clone");
}

// clone3 hides its flags in memory seccomp cannot read, so the filter must refuse it (ENOSYS).
static int cmd_clone3(int argc, char** argv) {
  int flag = argc > 2 ? ns_flag(argv[2]) : 0;
  struct clone_args args;
  memset(&args, 0, sizeof args);
  args.flags = (uint64_t)flag;
  args.exit_signal = SIGCHLD;
  long pid = syscall(SYS_clone3, &args, sizeof args);
  return reap_clone_child(pid, "clone3");
}

static int cmd_setns(int argc, char** argv) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/ns/%s", arg_str(argc, argv, 2, "net"));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return setup_failed(path);
  return report(setns(fd, 0), "setns");
}

static int cmd_mount(int argc, char** argv) {
  return report(mount("none", arg_str(argc, argv, 2, "/tmp"), "tmpfs", 0, NULL), "mount tmpfs");
}

static int cmd_umount(int argc, char** argv) {
  return report(umount2(arg_str(argc, argv, 2, "/proc"), MNT_DETACH), "umount2");
}

static int cmd_pivot_root(int argc, char** argv) {
  (void)argc; (void)argv;
  return report(syscall(SYS_pivot_root, ".", "."), "pivot_root");
}

static int cmd_chroot(int argc, char** argv) {
  return report(chroot(arg_str(argc, argv, 2, "/tmp")), "chroot");
}

// New mount API: fsopen is as dangerous as mount(2).
static int cmd_fsopen(int argc, char** argv) {
  (void)argc; (void)argv;
  return report(syscall(SYS_fsopen, "tmpfs", 0), "fsopen");
}

static int cmd_openat2(int argc, char** argv) {
  struct { uint64_t flags, mode, resolve; } how = {O_RDONLY, 0, 0};
  return report(syscall(SYS_openat2, AT_FDCWD, arg_str(argc, argv, 2, "/"), &how, sizeof how),
                "openat2");
}

// CVE-2014-3519 "shocker": open_by_handle_at opened host files by inode number from a container.
static int cmd_open_by_handle_at(int argc, char** argv) {
  const char* path = arg_str(argc, argv, 2, "/");
  struct { struct file_handle fh; unsigned char bytes[MAX_HANDLE_SZ]; } h;
  int mount_id = 0;
  h.fh.handle_bytes = MAX_HANDLE_SZ;
  if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) < 0) {
    // Forge a handle the way shocker did (ext4, inode 2) and try anyway.
    h.fh.handle_bytes = 8;
    h.fh.handle_type = 1;
    memset(h.bytes, 0, 8);
    h.bytes[0] = 2;
  }
  int mount_fd = open(path, O_RDONLY | O_CLOEXEC);
  if (mount_fd < 0) return setup_failed(path);
  return report(open_by_handle_at(mount_fd, &h.fh, O_RDONLY), "open_by_handle_at");
}

static int cmd_ptrace(int argc, char** argv) {
  const char* mode = arg_str(argc, argv, 2, "traceme");
  if (strcmp(mode, "traceme") == 0) return report(syscall(SYS_ptrace, 0L /*TRACEME*/, 0, 0, 0), mode);
  long pid = arg_long(argc, argv, 3, 1);
  if (syscall(SYS_ptrace, 16L /*PTRACE_ATTACH*/, pid, 0, 0) < 0) return fail("ptrace attach");
  // Let the tracee go again: a stopped init would hang the sandbox until its timeout.
  waitpid((pid_t)pid, NULL, __WALL);
  syscall(SYS_ptrace, 17L /*PTRACE_DETACH*/, pid, 0, 0);
  return ok("ptrace attach");
}

static int cmd_process_vm_readv(int argc, char** argv) {
  pid_t pid = (pid_t)arg_long(argc, argv, 2, getpid());
  char src[16] = "abprobe", dst[16];
  struct iovec local = {dst, sizeof dst}, remote = {src, sizeof src};
  return report(process_vm_readv(pid, &local, 1, &remote, 1, 0), "process_vm_readv");
}

// getrandom [N]: N (default 8, at most 64) bytes of getrandom(2), in hex on one line: what policy
// random_seed makes the same on every run (proc/getrandom_watch.h).
static int cmd_getrandom(int argc, char** argv) {
  unsigned char buf[64];
  long n = arg_long(argc, argv, 2, 8);
  if (n < 1 || n > (long)sizeof buf) return usage("getrandom [1-64]");
  if (syscall(SYS_getrandom, buf, (size_t)n, 0) != n) return fail("getrandom");
  for (long i = 0; i < n; i++) printf("%02x", buf[i]);
  printf("\n");
  return 0;
}

static int cmd_kill(int argc, char** argv) {
  if (argc < 4) return usage("kill PID SIG");
  return report(kill((pid_t)atol(argv[2]), atoi(argv[3])), "kill");
}

// ---- kernel attack surface ----------------------------------------------------------------------

static int cmd_bpf(int argc, char** argv) {
  (void)argc; (void)argv;
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.map_type = BPF_MAP_TYPE_ARRAY;
  attr.key_size = 4;
  attr.value_size = 4;
  attr.max_entries = 1;
  return report(syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof attr), "bpf map create");
}

static int cmd_userfaultfd(int argc, char** argv) {
  (void)argc; (void)argv;
  // UFFD_USER_MODE_ONLY (1) is allowed to unprivileged users even when the sysctl forbids the rest.
  long fd = syscall(SYS_userfaultfd, O_CLOEXEC | 1);
  if (fd < 0 && errno == EINVAL) fd = syscall(SYS_userfaultfd, O_CLOEXEC);
  return report(fd, "userfaultfd");
}

static int cmd_perf_event_open(int argc, char** argv) {
  (void)argc; (void)argv;
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return report(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0), "perf_event_open");
}

static int cmd_io_uring_setup(int argc, char** argv) {
  (void)argc; (void)argv;
  unsigned char params[120];  // struct io_uring_params; zeroed = defaults
  memset(params, 0, sizeof params);
  return report(syscall(SYS_io_uring_setup, 8, params), "io_uring_setup");
}

static int cmd_keyctl(int argc, char** argv) {
  (void)argc; (void)argv;
  // KEYCTL_GET_KEYRING_ID(KEY_SPEC_SESSION_KEYRING, create): the keyring is not namespaced.
  return report(syscall(SYS_keyctl, 0, -3, 1), "keyctl");
}

static int cmd_add_key(int argc, char** argv) {
  (void)argc; (void)argv;
  return report(syscall(SYS_add_key, "user", "abprobe", "x", 1, -2 /*process keyring*/), "add_key");
}

static int cmd_request_key(int argc, char** argv) {
  (void)argc; (void)argv;
  return report(syscall(SYS_request_key, "user", "abprobe", NULL, 0), "request_key");
}

static int cmd_kexec_load(int argc, char** argv) {
  (void)argc; (void)argv;
  return report(syscall(SYS_kexec_load, 0UL, 0UL, NULL, 0UL), "kexec_load");
}

static int cmd_kexec_file_load(int argc, char** argv) {
  (void)argc; (void)argv;
  return report(syscall(SYS_kexec_file_load, -1, -1, 0UL, "", 4UL /*UNLOAD*/), "kexec_file_load");
}

// CAD_OFF is the harmless reboot command: even if allowed it reboots nothing.
static int cmd_reboot(int argc, char** argv) {
  (void)argc; (void)argv;
  return report(syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2,
                        LINUX_REBOOT_CMD_CAD_OFF, NULL), "reboot");
}

static int cmd_init_module(int argc, char** argv) {
  (void)argc; (void)argv;
  static char image[64];
  return report(syscall(SYS_init_module, image, sizeof image, ""), "init_module");
}

static int cmd_finit_module(int argc, char** argv) {
  (void)argc; (void)argv;
  int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  return report(syscall(SYS_finit_module, fd, "", 0), "finit_module");
}

static int cmd_delete_module(int argc, char** argv) {
  (void)argc; (void)argv;
  return report(syscall(SYS_delete_module, "abprobe_none", O_NONBLOCK), "delete_module");
}

static int cmd_swapon(int argc, char** argv) {
  return report(syscall(SYS_swapon, arg_str(argc, argv, 2, "/workspace/swap"), 0), "swapon");
}

static int cmd_swapoff(int argc, char** argv) {
  return report(syscall(SYS_swapoff, arg_str(argc, argv, 2, "/workspace/swap")), "swapoff");
}

// SYSLOG_ACTION_SIZE_BUFFER (10): allowed unprivileged when dmesg_restrict=0, so only seccomp stops it.
static int cmd_syslog(int argc, char** argv) {
  (void)argc; (void)argv;
  return report(syscall(SYS_syslog, 10, NULL, 0), "syslog");
}

static int cmd_settimeofday(int argc, char** argv) {
  (void)argc; (void)argv;
  struct timeval now;
  gettimeofday(&now, NULL);
  return report(settimeofday(&now, NULL), "settimeofday");
}

static int cmd_clock_settime(int argc, char** argv) {
  (void)argc; (void)argv;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return report(clock_settime(CLOCK_REALTIME, &now), "clock_settime");
}

// The return value of personality() is the OLD persona, so re-read to see whether it stuck.
static int cmd_personality(int argc, char** argv) {
  unsigned long want = (unsigned long)arg_long(argc, argv, 2, 0x0040000);
  if (syscall(SYS_personality, want) < 0) return fail("personality");
  long now = syscall(SYS_personality, 0xffffffffUL);
  if ((unsigned long)now != want) {
    errno = EPERM;
    return fail("personality did not change");
  }
  return ok("personality set");
}

static int cmd_iopl(int argc, char** argv) {
  return report(iopl((int)arg_long(argc, argv, 2, 3)), "iopl");
}

static int cmd_ioperm(int argc, char** argv) {
  (void)argc; (void)argv;
  return report(ioperm(0x80, 1, 1), "ioperm");
}

static int cmd_sethostname(int argc, char** argv) {
  const char* name = arg_str(argc, argv, 2, "pwned");
  return report(sethostname(name, strlen(name)), "sethostname");
}

static int cmd_setuid(int argc, char** argv) {
  return report(syscall(SYS_setuid, arg_long(argc, argv, 2, 0)), "setuid");
}

static int cmd_setgid(int argc, char** argv) {
  return report(syscall(SYS_setgid, arg_long(argc, argv, 2, 0)), "setgid");
}

// ---- ABI escapes: must be KILLED (SIGSYS), not merely refused ------------------------------------

static int cmd_x32(int argc, char** argv) {
  (void)argc; (void)argv;
  long rc = syscall((long)(X32_SYSCALL_BIT | SYS_getpid));
  printf("SURVIVED x32 syscall rc=%ld errno=%d\n", rc, rc < 0 ? errno : 0);
  return 0;
}

// int80 [NR]: the syscall NR (default 20, i386's getpid) through int 0x80; prints the raw return
// (-errno on failure). gVisor runs int 0x80 through its x86_64 table, so there NR is an x86_64
// number and the filter's x86_64 rules answer it.
static int cmd_int80(int argc, char** argv) {
  long rc = argc > 2 ? strtol(argv[2], NULL, 0) : 20;
  __asm__ volatile("int $0x80" : "+a"(rc) : : "memory");
  printf("SURVIVED int 0x80 rc=%ld\n", rc);
  return 0;
}

// ---- terminals: CVE-2016-7545 / CVE-2017-5226 (TIOCSTI pushes keystrokes into the host tty) ----

// Opens the terminal named by `where`: a fd number, "ptmx" (a fresh pty slave made our
// controlling tty, so only the filter can refuse TIOCSTI), or a path.
static int open_tty(const char* where) {
  if (strcmp(where, "ptmx") == 0) {
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) return -1;
    const char* slave = ptsname(master);
    if (!slave) return -1;
    setsid();
    return open(slave, O_RDWR);  // without O_NOCTTY: becomes the controlling tty
  }
  if (where[0] >= '0' && where[0] <= '9') return atoi(where);
  return open(where, O_RDWR | O_NOCTTY);
}

// Passing the request through syscall() keeps all 64 bits: "high" sets bit 32, which the kernel
// ignores (cmd is an unsigned int) but a filter comparing 64 bits would miss.
static int tty_ioctl(int argc, char** argv, unsigned long request, void* arg, const char* what) {
  const char* where = arg_str(argc, argv, 2, "0");
  int fd = open_tty(where);
  // No pty is a broken probe; an unopenable /dev/tty (no controlling tty) blocks the attack.
  if (fd < 0) return strcmp(where, "ptmx") == 0 ? setup_failed("open pty") : fail("open tty");
  if (argc > 3 && strcmp(argv[3], "high") == 0) request |= 0x100000000UL;
  return report(syscall(SYS_ioctl, fd, request, arg), what);
}

static int cmd_tiocsti(int argc, char** argv) {
  char c = '\n';
  return tty_ioctl(argc, argv, TIOCSTI, &c, "ioctl TIOCSTI");
}

static int cmd_tioclinux(int argc, char** argv) {
  char subcode = 7;  // TIOCL_GETSHIFTSTATE: harmless read
  return tty_ioctl(argc, argv, TIOCLINUX, &subcode, "ioctl TIOCLINUX");
}

// ---- files: setuid bits, device nodes, plain reads and writes ------------------------------------

static int expect_mode_bits(const char* path, mode_t bits, const char* what) {
  struct stat st;
  if (stat(path, &st) < 0) return fail("stat");
  if ((st.st_mode & bits) != bits) {
    printf("FAIL errno=NONE %s: call returned 0 but mode is %o\n", what, st.st_mode & 07777);
    return 1;
  }
  return ok(what);
}

static int make_plain_file(const char* path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  if (fd < 0) return -1;
  close(fd);
  return 0;
}

// chmod MODE PATH [chmod|fchmod|fchmodat]: each call the filter must watch.
static int cmd_chmod(int argc, char** argv) {
  if (argc < 4) return usage("chmod MODE PATH [chmod|fchmod|fchmodat]");
  mode_t mode = (mode_t)strtol(argv[2], NULL, 8);
  const char* path = argv[3];
  const char* via = arg_str(argc, argv, 4, "chmod");
  if (make_plain_file(path) < 0) return setup_failed(path);
  long rc;
  if (strcmp(via, "fchmod") == 0) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    rc = fchmod(fd, mode);
  } else if (strcmp(via, "fchmodat") == 0) {
    rc = syscall(SYS_fchmodat, AT_FDCWD, path, mode);
  } else {
    rc = syscall(SYS_chmod, path, mode);
  }
  if (rc < 0) return fail(via);
  return expect_mode_bits(path, mode & 06000, via);
}

// create MODE PATH [open|openat|creat|mkdir]: a setuid/setgid mode at creation time.
static int cmd_create(int argc, char** argv) {
  if (argc < 4) return usage("create MODE PATH [open|openat|creat|mkdir]");
  mode_t mode = (mode_t)strtol(argv[2], NULL, 8);
  const char* path = argv[3];
  const char* via = arg_str(argc, argv, 4, "open");
  umask(0);
  long rc;
  if (strcmp(via, "mkdir") == 0) rc = syscall(SYS_mkdir, path, mode);
  else if (strcmp(via, "creat") == 0) rc = syscall(SYS_creat, path, mode);
  else if (strcmp(via, "openat") == 0)
    rc = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL, mode);
  else rc = syscall(SYS_open, path, O_WRONLY | O_CREAT | O_EXCL, mode);
  if (rc < 0) return fail(via);
  return expect_mode_bits(path, mode & 06000, via);
}

static mode_t node_type(const char* name) {
  if (strcmp(name, "char") == 0) return S_IFCHR;
  if (strcmp(name, "block") == 0) return S_IFBLK;
  if (strcmp(name, "fifo") == 0) return S_IFIFO;
  if (strcmp(name, "sock") == 0) return S_IFSOCK;
  if (strcmp(name, "reg") == 0) return S_IFREG;
  return (mode_t)-1;
}

// mknod [PATH] [char|block|fifo|sock|reg] [mknod|mknodat]: a char device 1:1 (/dev/mem) by
// default, through the raw syscall (glibc's mknod is mknodat; the filter checks both).
static int cmd_mknod(int argc, char** argv) {
  const char* path = arg_str(argc, argv, 2, "/workspace/mem");
  mode_t type = node_type(arg_str(argc, argv, 3, "char"));
  const char* via = arg_str(argc, argv, 4, "mknodat");
  if (type == (mode_t)-1) return usage("mknod [PATH] [char|block|fifo|sock|reg] [mknod|mknodat]");
  dev_t dev = (type == S_IFCHR || type == S_IFBLK) ? makedev(1, 1) : 0;
  long rc = strcmp(via, "mknod") == 0 ? syscall(SYS_mknod, path, type | 0666, dev)
                                      : syscall(SYS_mknodat, AT_FDCWD, path, type | 0666, dev);
  if (rc < 0) return fail(via);
  struct stat st;
  if (lstat(path, &st) < 0) return setup_failed("lstat");
  if ((st.st_mode & S_IFMT) != type) { errno = EINVAL; return fail("made another file type"); }
  return ok(via);
}

// mknod-userns DIR: outside the sandbox's filter, in a fresh user namespace where the caller is
// root with every capability: a FIFO can be made (the control), a char device cannot, because
// CAP_MKNOD counts only in the initial user namespace. The second wall behind the filter's rule.
// DIR is made first, by the caller as it is, so the namespace's root owns it; it is left empty.
static int cmd_mknod_userns(int argc, char** argv) {
  if (argc < 3) return usage("mknod-userns DIR");
  char uid_map[64], gid_map[64], fifo[4096], dev[4096];
  snprintf(uid_map, sizeof uid_map, "0 %u 1", (unsigned)getuid());
  snprintf(gid_map, sizeof gid_map, "0 %u 1", (unsigned)getgid());
  snprintf(fifo, sizeof fifo, "%s/fifo", argv[2]);
  snprintf(dev, sizeof dev, "%s/mem", argv[2]);
  if (mkdir(argv[2], 0700) < 0) return setup_failed("mkdir DIR");
  if (unshare(CLONE_NEWUSER) < 0) return setup_failed("unshare(CLONE_NEWUSER)");
  const char* files[] = {"/proc/self/uid_map", "/proc/self/setgroups", "/proc/self/gid_map"};
  const char* lines[] = {uid_map, "deny", gid_map};
  for (int i = 0; i < 3; i++) {
    int fd = open(files[i], O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, lines[i], strlen(lines[i])) < 0) return setup_failed(files[i]);
    close(fd);
  }
  if (mknod(fifo, S_IFIFO | 0600, 0) < 0) return setup_failed("mknod fifo (the control)");
  unlink(fifo);
  long rc = mknod(dev, S_IFCHR | 0600, makedev(1, 1));
  int saved = errno;
  if (rc == 0) unlink(dev);
  errno = saved;
  return report(rc, "mknod char 1:1 in a user namespace");
}

static int cmd_write(int argc, char** argv) {
  if (argc < 3) return usage("write PATH [DATA]");
  const char* data = arg_str(argc, argv, 3, "abprobe\n");
  int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail("open");
  if (write(fd, data, strlen(data)) < 0) return fail("write");
  if (close(fd) < 0) return fail("close");
  return ok("written");
}

// fallocate PATH BYTES [COUNT]: COUNT files PATH.0.. of BYTES each, allocated (no data written).
static int cmd_fallocate(int argc, char** argv) {
  if (argc < 4) return usage("fallocate PATH BYTES [COUNT]");
  long bytes = arg_long(argc, argv, 3, 0), count = arg_long(argc, argv, 4, 1);
  char path[4096], detail[64];
  for (long i = 0; i < count; i++) {
    snprintf(path, sizeof path, "%s.%ld", argv[2], i);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return fail("open");
    int rc = fallocate(fd, 0, 0, bytes);
    close(fd);
    snprintf(detail, sizeof detail, "fallocate of file %ld", i);
    if (rc != 0) return fail(detail);
  }
  return ok("allocated");
}

// files DIR COUNT: creates COUNT empty files in DIR; says how many it made before a refusal.
static int cmd_files(int argc, char** argv) {
  if (argc < 4) return usage("files DIR COUNT");
  long count = arg_long(argc, argv, 3, 0);
  char path[4096], detail[64];
  for (long i = 0; i < count; i++) {
    snprintf(path, sizeof path, "%s/f%ld", argv[2], i);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
      snprintf(detail, sizeof detail, "made=%ld", i);
      return fail(detail);
    }
    close(fd);
  }
  return ok("made all");
}

// subvol-create DIR NAME: a btrfs subvolume (a qgroup the workspace's quota would not count).
static int cmd_subvol_create(int argc, char** argv) {
  if (argc < 4) return usage("subvol-create DIR NAME");
  struct { int64_t fd; uint64_t transid, flags, unused[4]; char name[4040]; } args;
  memset(&args, 0, sizeof args);
  snprintf(args.name, sizeof args.name, "%s", argv[3]);
  int dir = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return setup_failed("open dir");
  const unsigned long kSubvolCreateV2 = 0x50009418;  // _IOW(0x94, 24, btrfs_ioctl_vol_args_v2)
  return report(ioctl(dir, kSubvolCreateV2, &args), "BTRFS_IOC_SUBVOL_CREATE_V2");
}

static int cmd_read(int argc, char** argv) {
  if (argc < 3) return usage("read PATH");
  int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail("open");
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0) return fail("read");
  printf("OK read %zd bytes\n", n);
  return 0;
}

// ---- descriptors, capabilities, resources ------------------------------------------------------

static int cmd_fds(int argc, char** argv) {
  (void)argc; (void)argv;
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return setup_failed("/proc/self/fd");
  printf("OK fds:");
  for (struct dirent* e; (e = readdir(dir)) != NULL;) {
    if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(dir)) continue;
    printf(" %s", e->d_name);
  }
  printf("\n");
  closedir(dir);
  return 0;
}

// caps: the credential lines of /proc/self/status. gVisor's /proc has no CapAmb or NoNewPrivs
// line; those are then asked of the kernel itself (prctl), in the same format.
static int cmd_caps(int argc, char** argv) {
  (void)argc; (void)argv;
  FILE* f = fopen("/proc/self/status", "re");
  if (!f) return setup_failed("/proc/self/status");
  char line[256];
  int saw_ambient = 0, saw_nnp = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "Cap", 3) == 0 || strncmp(line, "NoNewPrivs", 10) == 0 ||
        strncmp(line, "Seccomp:", 8) == 0 || strncmp(line, "Uid:", 4) == 0 ||
        strncmp(line, "Gid:", 4) == 0)
      fputs(line, stdout);
    saw_ambient |= strncmp(line, "CapAmb:", 7) == 0;
    saw_nnp |= strncmp(line, "NoNewPrivs:", 11) == 0;
  }
  fclose(f);
  if (!saw_ambient) {
    unsigned long long ambient = 0;
    for (int cap = 0; cap < 64; cap++) {
      int set = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0);
      if (set < 0) break;  // EINVAL: past the last capability this kernel knows
      if (set > 0) ambient |= 1ull << cap;
    }
    printf("CapAmb:\t%016llx\n", ambient);
  }
  if (!saw_nnp) printf("NoNewPrivs:\t%d\n", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
  return 0;
}

// fork N: keeps every child alive until all forks were tried, so pids.max is what is measured.
static int cmd_fork(int argc, char** argv) {
  long want = arg_long(argc, argv, 2, 10), made = 0;
  int gate[2];
  if (pipe(gate) < 0) return setup_failed("pipe");
  int last_errno = 0;
  for (long i = 0; i < want; i++) {
    pid_t pid = fork();
    if (pid < 0) { last_errno = errno; break; }
    if (pid == 0) {
      char c;
      close(gate[1]);
      while (read(gate[0], &c, 1) < 0 && errno == EINTR) {}
      _exit(0);
    }
    made++;
  }
  close(gate[1]);
  while (wait(NULL) > 0) {}
  printf("%s forked=%ld of %ld errno=%s\n", made == want ? "OK" : "FAIL", made, want,
         last_errno ? strerrorname_np(last_errno) : "0");
  return made == want ? 0 : 1;
}

static int cmd_alloc(int argc, char** argv) {
  long mb = arg_long(argc, argv, 2, 64);
  for (long i = 0; i < mb; i++) {
    char* p = malloc(1 << 20);
    if (!p) { printf("FAIL errno=ENOMEM(12) allocated %ld MB of %ld\n", i, mb); return 1; }
    memset(p, 0x5a, 1 << 20);  // touch every page: untouched pages cost nothing
  }
  printf("OK allocated %ld MB\n", mb);
  return 0;
}

// ---- sockets ------------------------------------------------------------------------------------

static int cmd_socket(int argc, char** argv) {
  static const struct { const char* name; int family, type; } kKinds[] = {
      {"packet", AF_PACKET, SOCK_RAW},  {"alg", AF_ALG, SOCK_SEQPACKET},
      {"vsock", AF_VSOCK, SOCK_STREAM}, {"inet", AF_INET, SOCK_STREAM},
      {"inet6", AF_INET6, SOCK_STREAM}, {"unix", AF_UNIX, SOCK_STREAM},
      {"netlink", AF_NETLINK, SOCK_RAW}, {"raw", AF_INET, SOCK_RAW},
  };
  const char* name = arg_str(argc, argv, 2, "");
  for (size_t i = 0; i < sizeof kKinds / sizeof kKinds[0]; i++)
    if (strcmp(kKinds[i].name, name) == 0)
      return report(socket(kKinds[i].family, kKinds[i].type | SOCK_CLOEXEC, 0), name);
  return usage("socket packet|alg|vsock|inet|inet6|unix|netlink|raw");
}

// Connects with a 2 s bound so an unreachable peer never hangs the suite.
static int connect_bounded(int fd, const struct sockaddr* addr, socklen_t len, const char* what) {
  fcntl(fd, F_SETFL, O_NONBLOCK);
  if (connect(fd, addr, len) == 0) return ok(what);
  if (errno != EINPROGRESS) return fail(what);
  struct pollfd p = {fd, POLLOUT, 0};
  if (poll(&p, 1, 2000) == 0) { errno = ETIMEDOUT; return fail(what); }
  int err = 0;
  socklen_t elen = sizeof err;
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen);
  errno = err;
  return err ? fail(what) : ok(what);
}

static int connect_unix(const char* name, int abstract) {
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  size_t n = strlen(name);
  if (n + 2 > sizeof addr.sun_path) return usage("socket name too long");
  memcpy(addr.sun_path + (abstract ? 1 : 0), name, n);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return setup_failed("socket");
  socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (abstract ? 1 : 0));
  return connect_bounded(fd, (struct sockaddr*)&addr, len, abstract ? "connect abstract" : "connect unix");
}

static int cmd_connect_unix(int argc, char** argv) {
  if (argc < 3) return usage("connect-unix PATH");
  return connect_unix(argv[2], 0);
}

static int cmd_connect_abstract(int argc, char** argv) {
  if (argc < 3) return usage("connect-abstract NAME");
  return connect_unix(argv[2], 1);
}

static int cmd_connect_tcp(int argc, char** argv) {
  if (argc < 4) return usage("connect-tcp HOST PORT");
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)atoi(argv[3]));
  if (inet_pton(AF_INET, argv[2], &addr.sin_addr) != 1) return usage("HOST must be an IPv4 address");
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail("socket");
  return connect_bounded(fd, (struct sockaddr*)&addr, sizeof addr, "connect tcp");
}

// proxy-request LINE [HEADER...]: sends "LINE\r\nHEADER\r\n...\r\n" to the egress proxy named by
// $HTTP_PROXY (http://127.0.0.1:PORT) and prints what it answers, up to 64 KiB or 10 s. For test
// images with no HTTP client of their own (the docker lane's busybox).
static int cmd_proxy_request(int argc, char** argv) {
  if (argc < 3) return usage("proxy-request LINE [HEADER...]");
  const char* proxy = getenv("HTTP_PROXY");
  const char* colon = proxy ? strrchr(proxy, ':') : NULL;
  if (colon == NULL) return setup_failed("HTTP_PROXY");
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)atoi(colon + 1));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect(fd, (struct sockaddr*)&addr, sizeof addr) != 0) return fail("connect proxy");
  char req[8192];
  size_t n = 0;
  for (int i = 2; i < argc && n < sizeof req - 8; i++)
    n += (size_t)snprintf(req + n, sizeof req - n, "%s\r\n", argv[i]);
  n += (size_t)snprintf(req + n, sizeof req - n, "\r\n");
  if (write(fd, req, n) != (ssize_t)n) return fail("write");
  static char buf[65536];
  size_t got = 0;
  struct pollfd p = {fd, POLLIN, 0};
  while (got < sizeof buf - 1 && poll(&p, 1, 10000) == 1) {
    ssize_t r = read(fd, buf + got, sizeof buf - 1 - got);
    if (r <= 0) break;
    got += (size_t)r;
  }
  buf[got] = 0;
  fputs(buf, stdout);
  return 0;
}

// dns-query NAME: sends one DNS query for NAME (type A, over UDP) to the first nameserver of
// /etc/resolv.conf, as any resolver would, and prints the answer's RCODE ("OK rcode=5" for
// REFUSED) or FAIL when none comes within 10 s. A static probe cannot use the C library's
// resolver; this is the part of it the sandbox sees.
static int cmd_dns_query(int argc, char** argv) {
  if (argc < 3) return usage("dns-query NAME");
  FILE* conf = fopen("/etc/resolv.conf", "r");
  if (conf == NULL) return fail("open /etc/resolv.conf");
  char line[256], server[64] = "";
  while (fgets(line, sizeof line, conf) != NULL && server[0] == 0) sscanf(line, "nameserver %63s", server);
  fclose(conf);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons(53);
  if (inet_pton(AF_INET, server, &addr.sin_addr) != 1) return setup_failed("no IPv4 nameserver in /etc/resolv.conf");
  unsigned char q[300] = {0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
  size_t n = 12;
  for (const char* label = argv[2]; *label != 0 && n < sizeof q - 70;) {
    size_t len = strcspn(label, ".");
    if (len == 0 || len > 63) return usage("NAME must be a dotted name");
    q[n++] = (unsigned char)len;
    memcpy(q + n, label, len);
    n += len;
    label += len + (label[len] == '.');
  }
  q[n++] = 0;
  q[n++] = 0, q[n++] = 1, q[n++] = 0, q[n++] = 1;  // type A, class IN
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail("socket");
  if (sendto(fd, q, n, 0, (struct sockaddr*)&addr, sizeof addr) != (ssize_t)n) return fail("sendto");
  struct pollfd p = {fd, POLLIN, 0};
  unsigned char a[512];
  if (poll(&p, 1, 10000) != 1) return fail("no answer");
  ssize_t got = recv(fd, a, sizeof a, 0);
  if (got < 12) return fail("recv");
  printf("OK rcode=%d server=%s\n", a[3] & 0x0f, server);
  return 0;
}

// tunsetiff: makes a TUN interface through /dev/net/tun, which needs CAP_NET_ADMIN. gVisor puts
// its own /dev/net/tun in every box; this shows it gives nothing.
static int cmd_tunsetiff(int argc, char** argv) {
  (void)argc; (void)argv;
  int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (fd < 0) return fail("open /dev/net/tun");
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
  strncpy(ifr.ifr_name, "abtun0", IFNAMSIZ - 1);
  return report(ioctl(fd, TUNSETIFF, &ifr), "TUNSETIFF");
}

// loopback: a TCP listener on 127.0.0.1 and a connection to it: the sandbox's own loopback works.
static int cmd_loopback(int argc, char** argv) {
  (void)argc;
  (void)argv;
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int srv = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (srv < 0) return fail("socket");
  if (bind(srv, (struct sockaddr*)&addr, sizeof addr) != 0) return fail("bind 127.0.0.1");
  if (listen(srv, 1) != 0 || getsockname(srv, (struct sockaddr*)&addr, &len) != 0) return fail("listen");
  int cli = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (cli < 0) return fail("socket");
  if (connect(cli, (struct sockaddr*)&addr, sizeof addr) != 0) return fail("connect 127.0.0.1");
  int acc = accept(srv, NULL, NULL);
  if (acc < 0) return fail("accept");
  return ok("LOOPBACK_OK");
}

static void* thread_body(void* arg) { return arg; }

// thread: pthread_create and join: ordinary threads are not broken by the filter.
static int cmd_thread(int argc, char** argv) {
  (void)argc;
  (void)argv;
  pthread_t t;
  int rc = pthread_create(&t, NULL, thread_body, NULL);
  if (rc != 0) {
    errno = rc;
    return fail("pthread_create");
  }
  pthread_join(t, NULL);
  return ok("THREAD_OK");
}

struct allocation { const char* path; long bytes; int err; };

static void* allocate_body(void* arg) {
  struct allocation* a = arg;
  int fd = open(a->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    a->err = errno;
    return NULL;
  }
  a->err = fallocate(fd, 0, 0, a->bytes) == 0 ? 0 : errno;
  close(fd);
  return NULL;
}

// fallocate-thread PATH BYTES: one fallocate from a thread that is not the process's leader.
static int cmd_fallocate_thread(int argc, char** argv) {
  if (argc < 4) return usage("fallocate-thread PATH BYTES");
  struct allocation a = {argv[2], arg_long(argc, argv, 3, 0), 0};
  pthread_t t;
  int rc = pthread_create(&t, NULL, allocate_body, &a);
  if (rc != 0) {
    errno = rc;
    return setup_failed("pthread_create");
  }
  pthread_join(t, NULL);
  errno = a.err;
  return a.err == 0 ? ok("allocated") : fail("fallocate in a thread");
}

// agent-ping PATH: connects to an agent socket and sends a ping frame (proto/agent_protocol.h:
// 'Q', u32 LE length, JSON). OK when an answer frame comes back; FAIL when the agent hangs up.
static int cmd_agent_ping(int argc, char** argv) {
  if (argc < 3) return usage("agent-ping PATH");
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (strlen(argv[2]) + 1 > sizeof addr.sun_path) return usage("socket path too long");
  strcpy(addr.sun_path, argv[2]);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return setup_failed("socket");
  if (connect(fd, (struct sockaddr*)&addr, sizeof addr) != 0) return fail("connect");
  const char body[] = "{\"op\":\"ping\"}";
  unsigned char frame[5 + sizeof body];
  uint32_t len = sizeof body - 1;
  frame[0] = 'Q';
  for (int i = 0; i < 4; i++) frame[1 + i] = (unsigned char)(len >> (8 * i));
  memcpy(frame + 5, body, len);
  if (send(fd, frame, 5 + len, MSG_NOSIGNAL) < 0 && errno != EPIPE && errno != ECONNRESET)
    return fail("send");
  struct pollfd p = {fd, POLLIN, 0};
  if (poll(&p, 1, 3000) == 0) { errno = ETIMEDOUT; return fail("no answer within 3 s"); }
  char type = 0;
  ssize_t n = read(fd, &type, 1);
  if (n == 1 && type == 'A') return ok("the agent answered");
  // A close with our request still unread reaches us as a reset rather than EOF.
  if (n == 0) errno = ECONNABORTED;
  if (n == 0 || errno == ECONNRESET) return fail("the agent hung up without an answer");
  return fail("read");
}

// ---- dispatch ------------------------------------------------------------------------------------

typedef int (*Command)(int argc, char** argv);
static const struct { const char* name; Command fn; } kCommands[] = {
    {"unshare", cmd_unshare}, {"clone", cmd_clone}, {"clone3", cmd_clone3}, {"setns", cmd_setns},
    {"mount", cmd_mount}, {"umount", cmd_umount}, {"pivot_root", cmd_pivot_root},
    {"chroot", cmd_chroot}, {"fsopen", cmd_fsopen}, {"openat2", cmd_openat2},
    {"open_by_handle_at", cmd_open_by_handle_at}, {"ptrace", cmd_ptrace},
    {"process_vm_readv", cmd_process_vm_readv}, {"getrandom", cmd_getrandom}, {"kill", cmd_kill}, {"bpf", cmd_bpf},
    {"userfaultfd", cmd_userfaultfd}, {"perf_event_open", cmd_perf_event_open},
    {"io_uring_setup", cmd_io_uring_setup}, {"keyctl", cmd_keyctl}, {"add_key", cmd_add_key},
    {"request_key", cmd_request_key}, {"kexec_load", cmd_kexec_load},
    {"kexec_file_load", cmd_kexec_file_load}, {"reboot", cmd_reboot},
    {"init_module", cmd_init_module}, {"finit_module", cmd_finit_module},
    {"delete_module", cmd_delete_module}, {"swapon", cmd_swapon}, {"swapoff", cmd_swapoff},
    {"syslog", cmd_syslog}, {"settimeofday", cmd_settimeofday},
    {"clock_settime", cmd_clock_settime}, {"personality", cmd_personality}, {"iopl", cmd_iopl},
    {"ioperm", cmd_ioperm}, {"sethostname", cmd_sethostname}, {"setuid", cmd_setuid},
    {"setgid", cmd_setgid}, {"x32", cmd_x32}, {"int80", cmd_int80}, {"tiocsti", cmd_tiocsti},
    {"tioclinux", cmd_tioclinux}, {"chmod", cmd_chmod}, {"create", cmd_create},
    {"mknod", cmd_mknod}, {"mknod-userns", cmd_mknod_userns}, {"write", cmd_write}, {"read", cmd_read},
    {"fallocate", cmd_fallocate}, {"files", cmd_files}, {"subvol-create", cmd_subvol_create}, {"fds", cmd_fds},
    {"caps", cmd_caps}, {"fork", cmd_fork}, {"alloc", cmd_alloc}, {"socket", cmd_socket},
    {"connect-unix", cmd_connect_unix}, {"connect-abstract", cmd_connect_abstract},
    {"connect-tcp", cmd_connect_tcp}, {"proxy-request", cmd_proxy_request},
    {"dns-query", cmd_dns_query},
    {"agent-ping", cmd_agent_ping},
    {"loopback", cmd_loopback}, {"tunsetiff", cmd_tunsetiff}, {"thread", cmd_thread},
    {"fallocate-thread", cmd_fallocate_thread},
};

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char* name = arg_str(argc, argv, 1, "help");
  for (size_t i = 0; i < sizeof kCommands / sizeof kCommands[0]; i++)
    if (strcmp(kCommands[i].name, name) == 0) return kCommands[i].fn(argc, argv);
  printf("USAGE abprobe SUBCOMMAND [ARG...]; subcommands:");
  for (size_t i = 0; i < sizeof kCommands / sizeof kCommands[0]; i++) printf(" %s", kCommands[i].name);
  printf("\n");
  return 2;
}
