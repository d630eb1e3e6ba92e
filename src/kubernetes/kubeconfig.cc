#include "kubernetes/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <map>

#include "base/base64.h"
#include "sys/file_util.h"

namespace agentbox::kubernetes {
namespace {

constexpr size_t kMaxFile = size_t{4} << 20;  // kubeconfigs, CAs, keys: a few KiB each

// A named cluster, context or user: its inner mapping and the file that defined it.
struct Entry {
  std::string file;
  YAML::Node node;
};
struct Merged {
  std::string current_context;
  std::map<std::string, Entry> clusters, contexts, users;
};

std::string Str(const YAML::Node& map, const char* key) {
  const YAML::Node v = map[key];
  return v && v.IsScalar() ? v.as<std::string>() : "";
}

std::string DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

std::string AgainstFile(const Entry& e, const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  return DirOf(e.file) + "/" + path;
}

Status MergeList(const std::string& path, const YAML::Node& root, const char* list_key,
                 const char* item_key, std::map<std::string, Entry>& into) {
  const YAML::Node list = root[list_key];
  if (!list || list.IsNull()) return OkStatus();
  if (!list.IsSequence())
    return InvalidArgument("kubeconfig " + path + ": " + list_key + " is not a list");
  for (size_t i = 0; i < list.size(); ++i) {
    std::string name = Str(list[i], "name");
    if (name.empty()) {
      return InvalidArgument("kubeconfig " + path + ": " + list_key + "[" + std::to_string(i) +
                             "] has no name");
    }
    into.try_emplace(name, Entry{path, list[i][item_key]});  // the first file wins
  }
  return OkStatus();
}

Status MergeFile(const std::string& path, const std::string& text, Merged& m) {
  try {
    YAML::Node root = YAML::Load(text);
    if (root.IsNull()) return OkStatus();  // an empty file, as kubectl takes it
    if (!root.IsMap()) return InvalidArgument("kubeconfig " + path + ": not a kubeconfig mapping");
    if (m.current_context.empty()) m.current_context = Str(root, "current-context");
    AB_RETURN_IF_ERROR(MergeList(path, root, "clusters", "cluster", m.clusters));
    AB_RETURN_IF_ERROR(MergeList(path, root, "contexts", "context", m.contexts));
    return MergeList(path, root, "users", "user", m.users);
  } catch (const YAML::ParserException& e) {
    return InvalidArgument("kubeconfig " + path + ": not YAML (line " +
                           std::to_string(e.mark.line + 1) + ": " + e.msg + ")");
  } catch (const YAML::Exception& e) {  // a list item that is no mapping
    return InvalidArgument("kubeconfig " + path + ": line " + std::to_string(e.mark.line + 1) +
                           ": " + e.msg);
  }
}

// A PEM given inline (KEY-data, base64) or as a file (KEY); "" when neither.
StatusOr<std::string> Pem(const Entry& e, const std::string& what, const char* key) {
  std::string where = "kubeconfig " + e.file + ": " + what + ": ";
  std::string data = Str(e.node, (std::string(key) + "-data").c_str());
  if (!data.empty()) {
    std::optional<std::string> pem = Base64Decode(data);
    if (!pem) return InvalidArgument(where + key + "-data is not base64");
    return *pem;
  }
  std::string file = AgainstFile(e, Str(e.node, key));
  if (file.empty()) return std::string();
  StatusOr<std::string> pem = ReadFileAtMost(file, kMaxFile);
  if (!pem.ok())
    return InvalidArgument(where + "cannot read " + key + " (" + pem.status().message() + ")");
  return pem;
}

Status ReadCluster(const std::string& name, const Entry& e, bool allow_insecure,
                   ClusterAccess& out) {
  std::string what = "cluster \"" + name + "\"";
  out.server = Str(e.node, "server");
  if (out.server.empty())
    return InvalidArgument("kubeconfig " + e.file + ": " + what + " has no server");
  bool insecure = Str(e.node, "insecure-skip-tls-verify") == "true";
  bool plain = out.server.rfind("https://", 0) != 0;
  if ((insecure || plain) && !allow_insecure) {
    return InvalidArgument("kubeconfig " + e.file + ": " + what +
                           (insecure ? " sets insecure-skip-tls-verify" : " is not https") +
                           ": agentbox does not talk to an unverified API server unless asked to");
  }
  out.insecure_skip_tls_verify = insecure;
  AB_ASSIGN_OR_RETURN(out.ca_pem, Pem(e, what, "certificate-authority"));
  return OkStatus();
}

StatusOr<ExecPlugin> ReadExec(const Entry& e, const std::string& what) {
  const YAML::Node node = e.node["exec"];
  ExecPlugin exec;
  exec.api_version = Str(node, "apiVersion");
  exec.command = Str(node, "command");
  std::string where = "kubeconfig " + e.file + ": " + what + ": exec ";
  if (exec.command.empty()) return InvalidArgument(where + "has no command");
  if (exec.api_version != "client.authentication.k8s.io/v1" &&
      exec.api_version != "client.authentication.k8s.io/v1beta1") {
    return InvalidArgument(where + "apiVersion \"" + exec.api_version + "\" is not v1 or v1beta1");
  }
  if (Str(node, "interactiveMode") == "Always") {
    return InvalidArgument(where + "wants a terminal (interactiveMode Always); agentbox has none");
  }
  if (exec.command.find('/') != std::string::npos) exec.command = AgainstFile(e, exec.command);
  for (const YAML::Node& arg : node["args"]) exec.args.push_back(arg.as<std::string>());
  for (const YAML::Node& var : node["env"])
    exec.env.emplace_back(Str(var, "name"), Str(var, "value"));
  return exec;
}

Status ReadUser(const std::string& name, const Entry& e, ClusterAccess& out) {
  std::string what = "user \"" + name + "\"";
  std::string where = "kubeconfig " + e.file + ": " + what;
  if (e.node["auth-provider"]) {
    return InvalidArgument(where +
                           " uses an auth-provider, which agentbox does not support "
                           "(kubectl's exec credential plugins replace them)");
  }
  if (!Str(e.node, "username").empty() || !Str(e.node, "password").empty()) {
    return InvalidArgument(where + " uses a username and password, which Kubernetes dropped");
  }
  out.token = Str(e.node, "token");
  out.token_file = AgainstFile(e, Str(e.node, "tokenFile"));
  if (!out.token_file.empty()) {
    StatusOr<std::string> token = ReadFileAtMost(out.token_file, kMaxFile);
    if (!token.ok())
      return InvalidArgument(where + ": cannot read tokenFile (" + token.status().message() + ")");
  }
  AB_ASSIGN_OR_RETURN(out.client_cert_pem, Pem(e, what, "client-certificate"));
  AB_ASSIGN_OR_RETURN(out.client_key_pem, Pem(e, what, "client-key"));
  if (out.client_cert_pem.empty() != out.client_key_pem.empty()) {
    return InvalidArgument(where + " has a client certificate without its key, or a key alone");
  }
  if (e.node["exec"]) {
    AB_ASSIGN_OR_RETURN(out.exec, ReadExec(e, what));
  }
  return OkStatus();
}

StatusOr<ClusterAccess> Resolve(const Merged& m, const KubeconfigRequest& req,
                                const std::string& files) {
  std::string name = req.context.empty() ? m.current_context : req.context;
  if (name.empty())
    return InvalidArgument("kubeconfig " + files +
                           ": no current-context, and no context asked for");
  auto ctx = m.contexts.find(name);
  if (ctx == m.contexts.end())
    return InvalidArgument("kubeconfig " + files + ": no context \"" + name + "\"");
  ClusterAccess access;
  access.origin = "context \"" + name + "\" of " + ctx->second.file;
  std::string cluster = Str(ctx->second.node, "cluster");
  std::string user = Str(ctx->second.node, "user");
  std::string ns = Str(ctx->second.node, "namespace");
  if (!ns.empty()) access.namespace_name = ns;
  auto c = m.clusters.find(cluster);
  if (c == m.clusters.end()) {
    return InvalidArgument("kubeconfig " + files + ": context \"" + name + "\" names cluster \"" +
                           cluster + "\", which is not defined");
  }
  AB_RETURN_IF_ERROR(ReadCluster(cluster, c->second, req.allow_insecure_tls, access));
  if (user.empty()) return access;  // anonymous, as kubectl allows
  auto u = m.users.find(user);
  if (u == m.users.end()) {
    return InvalidArgument("kubeconfig " + files + ": context \"" + name + "\" names user \"" +
                           user + "\", which is not defined");
  }
  AB_RETURN_IF_ERROR(ReadUser(user, u->second, access));
  return access;
}

}  // namespace

KubeconfigEnv KubeconfigEnvFromProcess() {
  const char* kubeconfig = std::getenv("KUBECONFIG");
  const char* home = std::getenv("HOME");
  return {kubeconfig ? kubeconfig : "", home ? home : ""};
}

std::vector<std::string> KubeconfigPaths(const KubeconfigRequest& request,
                                         const KubeconfigEnv& env) {
  if (!request.path.empty()) return {request.path};
  std::vector<std::string> paths;
  size_t start = 0;
  while (start <= env.kubeconfig.size()) {
    size_t colon = env.kubeconfig.find(':', start);
    if (colon == std::string::npos) colon = env.kubeconfig.size();
    if (colon > start) paths.push_back(env.kubeconfig.substr(start, colon - start));
    start = colon + 1;
  }
  if (paths.empty() && !env.home.empty()) paths.push_back(env.home + "/.kube/config");
  return paths;
}

StatusOr<ClusterAccess> LoadKubeconfig(const KubeconfigRequest& request, const KubeconfigEnv& env) {
  std::vector<std::string> paths = KubeconfigPaths(request, env);
  if (paths.empty()) return NotFound("no kubeconfig: no --kubeconfig, $KUBECONFIG or $HOME");
  // Files of a $KUBECONFIG list may be missing (kubectl skips them); one named alone may not.
  const bool listed = paths.size() > 1;
  Merged merged;
  std::string read;
  for (const std::string& path : paths) {
    StatusOr<std::string> text = ReadFileAtMost(path, kMaxFile);
    if (!text.ok() && listed && text.status().code() == StatusCode::kNotFound) continue;
    if (!text.ok()) return Status(text.status().code(), "kubeconfig: " + text.status().message());
    AB_RETURN_IF_ERROR(MergeFile(path, *text, merged));
    read += (read.empty() ? "" : ":") + path;
  }
  if (read.empty()) return NotFound("kubeconfig: none of " + env.kubeconfig + " exists");
  try {
    return Resolve(merged, request, read);
  } catch (const YAML::Exception& e) {  // a list item of the wrong type (exec args, env)
    return InvalidArgument("kubeconfig " + read + ": line " + std::to_string(e.mark.line + 1) +
                           ": " + e.msg);
  }
}

}  // namespace agentbox::kubernetes
