// Internals of the doctor (doctor.cc, doctor_namespaces.cc, doctor_mounts.cc) and its tests.
// Every check runs on the host side; the ones that need a namespace run it in a forked child that
// exits afterwards, so nothing (process, mount, namespace, cgroup) outlives the check.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "base/status.h"
#include "native/doctor.h"

namespace agentbox::doctor_internal {

// "[ ok ] layer: detail" lines, one per check, failures marked "[FAIL]".
std::string FormatDoctorChecks(const std::vector<DoctorCheck>& checks);

// A probe run in a forked child: it fills `results` (errno values, 0 = worked) and returns.
// It runs between fork and _exit of a possibly multithreaded parent: async-signal-safe calls
// only, no allocation; `arg` is prepared by the parent.
inline constexpr int kProbeSlots = 16;
inline constexpr int kNotTried = -1;
using ProbeResults = std::array<int, kProbeSlots>;
using ProbeFn = void (*)(ProbeResults& results, const void* arg);

// Forks, runs `probe` in the child, waits for it (bounded by the probe's own work) and returns
// what it filled; slots it left alone read kNotTried.
StatusOr<ProbeResults> RunProbeInChild(ProbeFn probe, const void* arg);

// User namespace plus the mount, pid, ipc, uts, net and cgroup namespaces inside it, and a
// /proc mount inside a new pid namespace.
std::vector<DoctorCheck> NamespaceChecks();

// open_tree/move_mount/mount_setattr, and idmapped mounts on /tmp and the current directory.
std::vector<DoctorCheck> MountApiChecks();

}  // namespace agentbox::doctor_internal
