#include "core/session_replay.h"

#include <map>

#include "base/base64.h"
#include "core/session_records.h"
#include "spec/spec_json.h"

namespace agentbox {
namespace {

using json = nlohmann::json;

void Compare(const json& recorded, const json& replayed, const char* field,
             std::vector<Divergence>& out) {
  const json a = recorded.contains(field) ? recorded[field] : json();
  const json b = replayed.contains(field) ? replayed[field] : json();
  if (a != b) out.push_back({field, a, b});
}

std::string Words(const json& argv) {
  std::string out;
  for (const auto& a : argv)
    out += (out.empty() ? "" : " ") + (a.is_string() ? a.get<std::string>() : a.dump());
  return out;
}

std::string WhatOf(const json& rec) {
  if (rec.contains("argv")) return Words(rec["argv"]);
  if (rec.contains("snapshot")) return rec["snapshot"].value("id", "");
  return rec.value("path", "");
}

bool All(const SandboxRecord&) { return true; }

class Replayer {
 public:
  Replayer(SandboxManager& manager, const SessionLog& log, const ReplayOptions& options)
      : manager_(manager), log_(log), options_(options) {}

  StatusOr<ReplayReport> Run() {
    if (log_.records.empty() || log_.records[0].value("op", "") != "create") {
      return InvalidArgument("the session log does not begin with its create record");
    }
    if (log_.torn_tail) report_.notes.push_back("the log's last line is incomplete: left out");
    manager_.set_session_observer(
        [this](const nlohmann::ordered_json& rec) { last_ = json::parse(rec.dump()); });
    auto first = Start();
    if (first.ok()) {
      for (size_t i = *first; i < log_.records.size(); ++i) Step(i);
    }
    manager_.set_session_observer(nullptr);
    if (!sandbox_.id.empty() && !options_.keep) (void)manager_.Remove(sandbox_.id, true);
    if (!first.ok()) return first.status();
    report_.sandbox = sandbox_.id;
    report_.kept = options_.keep;
    return report_;
  }

 private:
  // Makes the replay's sandbox; the index of the first record to replay.
  StatusOr<size_t> Start() {
    const json& create = log_.records[0];
    if (!create.contains("policy")) return InvalidArgument("the create record has no policy");
    AB_ASSIGN_OR_RETURN(SandboxSpec spec, SpecFromPolicyJson(create["policy"]));
    if (spec.workspace) {
      report_.notes.push_back("the recorded workspace was the directory " + *spec.workspace +
                              ": the replay has a fresh one of its own");
      spec.workspace.reset();
    }
    spec.session_log = true;
    size_t at = 0;
    std::optional<std::string> snapshot_ref = options_.from;
    if (snapshot_ref) {
      AB_ASSIGN_OR_RETURN(at, WhereTaken(*snapshot_ref));
    } else if (create.contains("from_snapshot")) {
      snapshot_ref = create["from_snapshot"].value("id", "");
    }
    last_ = json();
    if (snapshot_ref) {
      auto found = manager_.FindAnySnapshot(*snapshot_ref, All);
      if (!found.ok()) {
        return Status(found.status().code(),
                      "the session began from snapshot " + *snapshot_ref + ", which is gone (" +
                          found.status().message() +
                          "): replay it --from a snapshot of the same workspace");
      }
      AB_ASSIGN_OR_RETURN(sandbox_, manager_.Fork(found->first, found->second, "", &spec));
    } else {
      AB_ASSIGN_OR_RETURN(sandbox_, manager_.Create(spec, ""));
    }
    ReplayStep step{log_.lines[at], "start", "the starting workspace", {}, "", ""};
    Compare(create, last_, "policy_hash", step.divergences);
    Compare(create, last_, "image_digest", step.divergences);
    Compare(log_.records[at], last_, "workspace_after", step.divergences);
    Record(std::move(step));
    return at + 1;
  }

  // The index of the record of snapshot `ref` (--from) in the log.
  StatusOr<size_t> WhereTaken(const std::string& ref) {
    AB_ASSIGN_OR_RETURN(auto found, manager_.FindAnySnapshot(ref, All));
    const std::string& id = found.second.id;
    for (size_t i = 0; i < log_.records.size(); ++i) {
      const json& r = log_.records[i];
      const bool taken = r.value("op", "") == "snapshot" && r.contains("snapshot") &&
                         r["snapshot"].value("id", "") == id;
      const bool began =
          i == 0 && r.contains("from_snapshot") && r["from_snapshot"].value("id", "") == id;
      if (taken || began) return i;
    }
    return InvalidArgument("snapshot " + id +
                           " was not taken in this session (the log has no "
                           "record of it)");
  }

  void Step(size_t i) {
    const json& rec = log_.records[i];
    ReplayStep step{log_.lines[i], rec.value("op", ""), WhatOf(rec), {}, "", ""};
    last_ = json();
    Status done = Do(rec, step);
    if (step.skipped.empty()) {
      if (!last_.is_null()) {
        step.divergences = CompareRecords(rec, last_);
      } else if (!done.ok()) {
        step.divergences.push_back({"result", "done", done.message()});
      }
    }
    Record(std::move(step));
  }

  void Record(ReplayStep step) {
    if (!step.skipped.empty()) ++report_.skipped;
    if (!step.divergences.empty()) ++report_.diverged;
    report_.steps.push_back(std::move(step));
  }

  Status Do(const json& rec, ReplayStep& step) {
    const std::string op = rec.value("op", "");
    if (op == "exec") return DoExec(rec, step);
    if (op == "snapshot" || op == "restore") return DoSnapshot(rec, step);
    const std::string path = rec.value("path", "");
    if (op == "write_file") {
      if (!rec.contains("content_base64")) {
        step.skipped = "its content (more than 256 KiB) is not in the log";
        return OkStatus();
      }
      auto data = Base64Decode(rec["content_base64"].get<std::string>());
      if (!data) return InvalidArgument("malformed content_base64");
      return manager_.WriteWorkspaceFile(sandbox_, path, *data, rec.value("mode", 0644u),
                                         rec.value("parents", false));
    }
    if (op == "mkdir")
      return manager_.MakeWorkspaceDir(sandbox_, path, rec.value("parents", false));
    if (op == "remove")
      return manager_.RemoveWorkspacePath(sandbox_, path, rec.value("recursive", false));
    if (op == "str_replace") {
      return manager_.ReplaceWorkspaceText(sandbox_, path, rec.value("old_str", ""),
                                           rec.value("new_str", ""));
    }
    step.skipped = "not an operation replay knows";
    return OkStatus();
  }

  Status DoExec(const json& rec, ReplayStep& step) {
    AB_ASSIGN_OR_RETURN(ExecRequest request, ExecRequestFromRecord(rec));
    if (request.tty) {
      step.skipped = "a terminal exec: its keystrokes are not in the log";
      return OkStatus();
    }
    if (rec.value("stdin", false)) step.note = "its stdin is not in the log: ran with /dev/null";
    if (request.detach) return manager_.StartProcess(sandbox_, request).status();
    OutputCapture capture(request.output_limit, /*forward_fds=*/false);
    auto result = rec.contains("rolled_back")
                      ? manager_.ExecWithRollback(sandbox_, request, capture)
                      : manager_.Exec(sandbox_, request, capture);
    return result.status();
  }

  Status DoSnapshot(const json& rec, ReplayStep& step) {
    const json ref = rec.value("snapshot", json::object());
    const std::string id = ref.value("id", "");
    if (rec.value("op", "") == "snapshot") {
      AB_ASSIGN_OR_RETURN(SnapshotRecord made,
                          manager_.TakeSnapshot(sandbox_, ref.value("name", "")));
      snapshots_[id] = made;
      return OkStatus();
    }
    auto mapped = snapshots_.find(id);
    if (mapped == snapshots_.end()) {
      step.skipped = "snapshot " + id + " was taken before the replay's start";
      return OkStatus();
    }
    return manager_.Restore(sandbox_, mapped->second).status();
  }

  SandboxManager& manager_;
  const SessionLog& log_;
  ReplayOptions options_;
  SandboxRecord sandbox_;
  json last_;                                        // the replay's record of the current step
  std::map<std::string, SnapshotRecord> snapshots_;  // recorded id -> the replay's snapshot
  ReplayReport report_;
};

}  // namespace

std::vector<Divergence> CompareRecords(const json& recorded, const json& replayed) {
  std::vector<Divergence> out;
  const std::string op = recorded.value("op", "");
  if (op == "exec" && !recorded.value("detach", false)) {
    for (const char* field :
         {"exit_code", "reason", "stdout_digest", "stderr_digest", "rolled_back"}) {
      Compare(recorded, replayed, field, out);
    }
  } else if (op != "exec" && op != "snapshot") {
    Compare(recorded, replayed, "error", out);
  }
  Compare(recorded, replayed, "workspace_before", out);
  if (!recorded.value("detach", false)) Compare(recorded, replayed, "workspace_after", out);
  return out;
}

StatusOr<ReplayReport> ReplaySession(SandboxManager& manager, const SessionLog& log,
                                     const ReplayOptions& options) {
  return Replayer(manager, log, options).Run();
}

nlohmann::ordered_json ReplayReportJson(const ReplayReport& report) {
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const ReplayStep& s : report.steps) {
    nlohmann::ordered_json divergences = nlohmann::ordered_json::array();
    for (const Divergence& d : s.divergences) {
      divergences.push_back(
          {{"field", d.field}, {"recorded", d.recorded}, {"replayed", d.replayed}});
    }
    nlohmann::ordered_json step = {
        {"line", s.line}, {"op", s.op}, {"what", s.what}, {"divergences", divergences}};
    if (!s.skipped.empty()) step["skipped"] = s.skipped;
    if (!s.note.empty()) step["note"] = s.note;
    steps.push_back(std::move(step));
  }
  return {{"sandbox", report.sandbox},
          {"kept", report.kept},
          {"replayed", report.steps.size() - report.skipped},
          {"diverged", report.diverged},
          {"skipped", report.skipped},
          {"notes", report.notes},
          {"steps", steps}};
}

std::string ReplayReportText(const ReplayReport& report) {
  std::string out;
  for (const ReplayStep& s : report.steps) {
    out += "line " + std::to_string(s.line) + " " + s.op + " " + s.what + ": ";
    if (!s.skipped.empty()) {
      out += "skipped (" + s.skipped + ")\n";
      continue;
    }
    out += s.divergences.empty() ? "same" : "DIVERGED";
    for (const Divergence& d : s.divergences) {
      out += "\n    " + d.field + ": recorded " + d.recorded.dump() + ", replayed " +
             d.replayed.dump();
    }
    out += (s.note.empty() ? "" : " (" + s.note + ")") + std::string("\n");
  }
  for (const std::string& note : report.notes) out += "note: " + note + "\n";
  out += std::to_string(report.steps.size() - report.skipped) + " replayed, " +
         std::to_string(report.diverged) + " diverged, " + std::to_string(report.skipped) +
         " skipped, in sandbox " + report.sandbox + (report.kept ? " (kept)" : " (removed)") + "\n";
  return out;
}

}  // namespace agentbox
