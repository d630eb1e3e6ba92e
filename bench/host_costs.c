// What this host charges for the things an exec is made of, so the floor under agentbox's
// figures is measured, not guessed: a syscall, a page fault, a first touch after the kernel
// populated the page, fork+exit+wait of a small process, vfork+exit+wait.
// Built and run by bench/host_costs; prints one "name value unit" line each.
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(void) {
  const int syscalls = 100000, pages = 10000, procs = 200;
  double t = now_us();
  for (int i = 0; i < syscalls; i++) syscall(SYS_getppid);
  printf("syscall %.2f us\n", (now_us() - t) / syscalls);

  char* p = mmap(NULL, pages * 4096L, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 1;
  t = now_us();
  for (int i = 0; i < pages; i++) p[i * 4096L] = 1;
  printf("page_fault %.2f us\n", (now_us() - t) / pages);

  char* q = mmap(NULL, pages * 4096L, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (q == MAP_FAILED || madvise(q, pages * 4096L, MADV_POPULATE_WRITE) != 0) {
    printf("first_touch_after_populate unavailable\n");
  } else {
    t = now_us();
    for (int i = 0; i < pages; i++) q[i * 4096L] = 1;
    printf("first_touch_after_populate %.2f us\n", (now_us() - t) / pages);
  }
  munmap(p, pages * 4096L);
  munmap(q, pages * 4096L);

  t = now_us();
  for (int i = 0; i < procs; i++) {
    pid_t c = fork();
    if (c == 0) _exit(0);
    waitpid(c, NULL, 0);
  }
  printf("fork_exit_wait %.0f us\n", (now_us() - t) / procs);
  t = now_us();
  for (int i = 0; i < procs; i++) {
    pid_t c = vfork();
    if (c == 0) _exit(0);
    waitpid(c, NULL, 0);
  }
  printf("vfork_exit_wait %.0f us\n", (now_us() - t) / procs);
  return 0;
}
