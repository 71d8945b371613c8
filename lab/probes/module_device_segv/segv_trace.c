/* LD_PRELOAD'ed into a process that dies of SIGSEGV on a machine without gdb: prints the
   native stack (module+offset, for addr2line) to stderr before the process ends. */
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static void on_fault(int sig) {
  void* frames[64];
  const int n = backtrace(frames, 64);
  const char banner[] = "segv_trace: native stack\n";
  write(2, banner, sizeof banner - 1);
  backtrace_symbols_fd(frames, n, 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void install(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_fault;
  sigaction(SIGSEGV, &action, 0);
  sigaction(SIGBUS, &action, 0);
}
