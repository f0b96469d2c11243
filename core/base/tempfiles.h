#pragma once
// Temporary files (the `.gpuplanner-XXXXXX.part` beside an output being
// written atomically) removed when SIGINT, SIGTERM or SIGHUP ends the process:
// a handler unlinks every registered path with async-signal-safe calls, then
// re-raises the signal with its default action (the exit status still says
// "killed by SIGINT").
#include <string>

namespace gp {

/// mkstemps(3) on `pathTemplate` (which holds "XXXXXX" followed by
/// `suffixLength` characters), with the signals blocked until the new file is
/// registered, so no signal can leave it behind. Returns the open descriptor
/// and replaces the template with the name, or -1 with errno set (EMFILE as
/// well when 64 temporary files are already registered).
int createRegisteredTempFile(std::string& pathTemplate, int suffixLength = 0);

/// Forgets a path registered by createRegisteredTempFile (after it was renamed
/// over its target or removed). Unknown paths are ignored.
void forgetTempFile(const std::string& path);

/// How many paths are registered now (tests).
int registeredTempFileCount();

} // namespace gp
