// The agent's exec, common to both modes: the plan, the supervision (output frames, deadline,
// disk watch, client hang-up) and the result. Starting and killing the process tree is the
// launcher's job (agent/exec_launcher.h).
#include "agent/exec_op.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <optional>

#include "agent/agent_user.h"
#include "agent/connection.h"
#include "agent/control_channel.h"
#include "agent/exec_launcher.h"
#include "agent/exec_lookups.h"
#include "agent/process_keeper.h"
#include "agent/stdin_frames.h"
#include "agent/terminal.h"
#include "policy/sandbox_env.h"
#include "proc/exec_go.h"
#include "proc/outcome.h"
#include "proc/seccomp_listener.h"
#include "proc/workspace_manifest.h"
#include "proto/agent_protocol.h"
#include "proto/process_wire.h"
#include "spec/sandbox_spec.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

using Clock = std::chrono::steady_clock;

StatusOr<ExecPipes> MakePipes(const ExecSetup& setup) {
  ExecPipes p;
  for (Pipe* pipe : {&p.out, &p.err, &p.status, &p.error}) {
    AB_ASSIGN_OR_RETURN(*pipe, MakePipe());
  }
  // Every exec's denials come to its handler; with --disk-watch its fallocate calls too, with
  // --random-seed its getrandom calls (a stream per exec, from the seed).
  AB_ASSIGN_OR_RETURN(p.listener,
                      MakeListenerChannel(kWorkspaceDir, setup.disk_watch, setup.random_seed));
  return p;
}

// What the request decides: the command, its environment, directory and stdin.
void FillRequestFields(const ExecRequest& req, int stdin_fd, CommandStrings& storage,
                       ChildPlan& plan) {
  plan.command.cwd = req.cwd;
  storage.argv = req.argv;
  if (req.tty) {
    // A terminal names its kind, as docker's -t does; the client's own TERM wins.
    std::vector<std::pair<std::string, std::string>> env = {{"TERM", "xterm"}};
    env.insert(env.end(), req.env.begin(), req.env.end());
    storage.env = BuildSandboxEnvironment(env);
  } else {
    storage.env = BuildSandboxEnvironment(req.env);
  }
  PointAtCommand(storage, plan.command);
  plan.command.stdin_fd = stdin_fd;
}

// What every exec shares: identity, filter, and the pipes back to this handler.
void FillCommonFields(const ExecPipes& pipes, ChildPlan& plan) {
  plan.command.uid = AgentUser().uid;
  plan.command.gid = AgentUser().gid;
  UseListenedFilter(plan.command, pipes.listener.watch_fallocate,
                    pipes.listener.random_seed.has_value());
  plan.error_write = pipes.error.write.get();
  plan.command.status_write = pipes.status.write.get();
  plan.command.stdout_write = pipes.out.write.get();
  plan.command.stderr_write = pipes.err.write.get();
  plan.command.listener_channel = pipes.listener.child.get();
}

// The launcher's adjustments, then the agent's --open-files (a pod's runtime sets no ulimit):
// the exec's init applies it before the command exists (proc/child_order.h D1).
void AdjustPlan(const ExecLauncher& launcher, const ExecSetup& setup, ChildPlan& plan) {
  launcher.AdjustPlan(plan);
  if (setup.open_files != 0) plan.command.rlimit_nofile = setup.open_files;
}

// tty_fd >= 0: a terminal exec (agent/terminal.h), that PTY slave its stdin, stdout and stderr.
StatusOr<StartedExec> StartExec(const ExecRequest& req, int stdin_fd, const ExecSetup& setup,
                                int tty_fd = -1) {
  AB_ASSIGN_OR_RETURN(ExecPipes pipes, MakePipes(setup));
  StartedExec exec{MakeExecLauncher(setup.mode), {}};
  CommandStrings storage;
  ChildPlan plan;
  FillRequestFields(req, tty_fd >= 0 ? tty_fd : stdin_fd, storage, plan);
  FillCommonFields(pipes, plan);
  if (tty_fd >= 0) {
    plan.command.stdout_write = plan.command.stderr_write = tty_fd;
    plan.command.controlling_tty = true;
  }
  AdjustPlan(*exec.launcher, setup, plan);
  AB_ASSIGN_OR_RETURN(exec.box, exec.launcher->Start(plan, pipes));
  return exec;
}

// Hands the request to a prepared init. Null when it is gone (in a container a command can
// kill it: same uid); then it is reaped here, and the caller starts one the usual way.
std::optional<StartedExec> GoPrepared(std::unique_ptr<PreparedExec> prepared,
                                      const ExecRequest& req, int stdin_fd) {
  CommandStrings storage;
  ChildPlan plan;
  FillRequestFields(req, stdin_fd, storage, plan);
  StartedExec& started = prepared->started;
  bool sent = SendGo(prepared->go.get(), plan.command).ok();
  prepared->go.reset();
  if (!sent) {
    started.launcher->Reap(started.box);
    return std::nullopt;
  }
  return std::move(started);
}

// client_fd: what tells that the client hung up (the connection, or a terminal's input thread).
ExecResult Supervised(int conn_fd, int client_fd, const ExecRequest& req, ExecLauncher& launcher,
                      SupervisedSandbox& box, Clock::time_point start) {
  OutputCapture output(req.output_limit, [conn_fd](OutputStream s, std::string_view data) {
    for (size_t off = 0; off < data.size(); off += kMaxFramePayload) {
      (void)WriteFrame(conn_fd,
                       s == OutputStream::kStdout ? FrameType::kStdout : FrameType::kStderr,
                       data.substr(off, kMaxFramePayload));
    }
  });
  SupervisionLimits limits;
  limits.deadline = start + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(req.timeout_seconds));
  limits.kill_all = [&launcher, &box] { launcher.KillAll(box); };
  limits.cancel_fd = client_fd;
  limits.finish_on_report = true;
  limits.output_is_terminal = req.tty;
  SupervisionOutcome outcome = Supervise(box, output, limits);
  launcher.Finish(outcome);
  return ResultOfSupervision(outcome, nullptr, output);
}

void Reply(int conn_fd, ExecResult result, Clock::time_point start) {
  result.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  ::prctl(PR_SET_NAME, kExecDoneName, 0, 0, 0);  // no longer counted by ping's active_execs
  (void)WriteFrame(conn_fd, FrameType::kResponse, ExecResultToWire(result));
}

}  // namespace

std::unique_ptr<PreparedExec> PrepareExec(const ExecSetup& setup) {
  auto pipes = MakePipes(setup);
  int pair[2];
  if (!pipes.ok() || ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return nullptr;
  }
  UniqueFd go(pair[0]), init_end(pair[1]);
  auto prepared = std::make_unique<PreparedExec>();
  StartedExec& started = prepared->started;
  started.launcher = MakeExecLauncher(setup.mode);
  ChildPlan plan;
  FillCommonFields(*pipes, plan);
  AdjustPlan(*started.launcher, setup, plan);
  plan.command.go_fd = init_end.get();
  auto box = started.launcher->Start(plan, *pipes);
  if (!box.ok()) return nullptr;
  started.box = std::move(*box);
  prepared->go = std::move(go);
  return prepared;
}

// The prepared init when there is one and it is still alive, else a new one.
StatusOr<StartedExec> Launch(const ExecRequest& req, int stdin_fd, const ExecSetup& setup,
                             std::unique_ptr<PreparedExec> prepared) {
  UniqueFd null_fd(stdin_fd >= 0 ? -1 : ::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int command_stdin = stdin_fd >= 0 ? stdin_fd : null_fd.get();
  if (prepared) {
    if (auto exec = GoPrepared(std::move(prepared), req, command_stdin)) return std::move(*exec);
  }
  return StartExec(req, command_stdin, setup);
}

Status HandleExec(int conn_fd, const ExecRequest& req, int stdin_fd, const ExecSetup& setup,
                  int control_fd, std::unique_ptr<PreparedExec> prepared) {
  if (req.tty) return HandleTerminalExec(conn_fd, req, setup, control_fd, std::move(prepared));
  auto start = Clock::now();
  auto manifest = TakeManifest(kWorkspaceDir);  // the workspace as it was, for its changes
  const std::optional<uint64_t> lookups = LookupsMark(control_fd);
  std::unique_ptr<StdinFrames> frames;
  if (req.stdin_frames) {
    AB_ASSIGN_OR_RETURN(frames, StdinFrames::Open());
    stdin_fd = frames->command_stdin();
  }
  AB_ASSIGN_OR_RETURN(StartedExec exec, Launch(req, stdin_fd, setup, std::move(prepared)));
  int client = conn_fd;  // what tells that the client hung up
  if (frames) {
    auto served = frames->Serve(conn_fd);
    if (!served.ok()) {
      exec.launcher->KillAll(exec.box);
      exec.launcher->Reap(exec.box);
      return served.status();
    }
    client = *served;
  }
  ExecResult result = Supervised(conn_fd, client, req, *exec.launcher, exec.box, start);
  AddLookupsSince(control_fd, lookups, result);
  result.effects.workspace = ChangesSince(manifest, kWorkspaceDir);
  Reply(conn_fd, std::move(result), start);
  exec.launcher->Reap(exec.box);
  return OkStatus();
}

// A prepared init's stdout and stderr are pipes already: a terminal exec starts its own.
Status HandleTerminalExec(int conn_fd, const ExecRequest& req, const ExecSetup& setup,
                          int control_fd, std::unique_ptr<PreparedExec> prepared) {
  if (prepared) {
    prepared->go.reset();  // it ends unused
    prepared->started.launcher->Reap(prepared->started.box);
  }
  auto start = Clock::now();
  auto manifest = TakeManifest(kWorkspaceDir);
  const std::optional<uint64_t> lookups = LookupsMark(control_fd);
  AB_ASSIGN_OR_RETURN(auto terminal, Terminal::Open({req.rows, req.cols}));
  AB_ASSIGN_OR_RETURN(StartedExec exec, StartExec(req, -1, setup, terminal->slave()));
  auto output = terminal->TakeOutput();
  auto client =
      output.ok() ? terminal->ServeInput(conn_fd, exec.box.pid) : StatusOr<int>(output.status());
  if (!client.ok()) {
    exec.launcher->KillAll(exec.box);
    exec.launcher->Reap(exec.box);
    return client.status();
  }
  exec.box.stdout_read = std::move(*output);  // the pipes' read ends see EOF: nobody writes them
  exec.box.stderr_read.reset();
  ExecResult result = Supervised(conn_fd, *client, req, *exec.launcher, exec.box, start);
  AddLookupsSince(control_fd, lookups, result);
  result.effects.workspace = ChangesSince(manifest, kWorkspaceDir);
  Reply(conn_fd, std::move(result), start);
  exec.launcher->Reap(exec.box);
  return OkStatus();
}

Status HandleDetachedExec(int conn_fd, const ExecRequest& req, const ExecSetup& setup,
                          int control_fd, std::unique_ptr<PreparedExec> prepared) {
  KeeperStart keeper;
  keeper.conn_fd = conn_fd;
  keeper.control_fd = control_fd;
  keeper.request = req;
  keeper.info.argv = req.argv;
  keeper.info.started_at =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  keeper.info.stdin_open = req.interactive;
  nlohmann::json registered =
      AskAgent(control_fd, {{"op", "register"}, {"info", ProcessInfoToWire(keeper.info)}});
  if (!registered.value("ok", false)) {
    return Status(StatusCodeFromName(registered.value("code", "internal")),
                  registered.value("error", std::string("could not register the process")));
  }
  keeper.info.id = registered.value("id", "");
  UniqueFd stdin_read;
  if (req.interactive) {
    AB_ASSIGN_OR_RETURN(Pipe pipe, MakePipe());
    stdin_read = std::move(pipe.read);
    keeper.stdin_write = std::move(pipe.write);
  }
  auto exec = Launch(req, stdin_read.get(), setup, std::move(prepared));
  stdin_read.reset();
  if (!exec.ok()) {
    // Listed as what it is: a process that could not be started.
    keeper.info.state = ProcessState::kExited;
    keeper.info.stdin_open = false;
    keeper.info.result = ErrorResult(exec.status());
    (void)SendControl(control_fd, {{"op", "exited"}, {"info", ProcessInfoToWire(keeper.info)}});
    return exec.status();
  }
  RunKeeper(std::move(keeper), std::move(*exec));
}

}  // namespace agentbox
