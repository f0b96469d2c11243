#include "core/base/tempfiles.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

namespace gp {

namespace {

constexpr int kSlots = 64;
constexpr std::size_t kMaxPath = 4096;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Written only while the slot is free (used == false), read by the handler only
// while it is taken: the handler never sees a half-written name.
char g_paths[kSlots][kMaxPath];
std::atomic<bool> g_used[kSlots];
std::mutex g_mutex; // registration and removal (never taken by the handler)

static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler reads these flags");

extern "C" void removeTempFilesAndReraise(int sig)
{
    const int saved = errno;
    for (int i = 0; i < kSlots; ++i)
        if (g_used[i].load(std::memory_order_acquire))
            ::unlink(g_paths[i]);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    errno = saved;
    ::raise(sig); // delivered when this handler returns: the default action ends the process
}

/// Installs the handler for each signal whose disposition is the default (an
/// ignored SIGHUP under nohup stays ignored; a program's own handler stays).
/// Looked at on every registration: cheap, and right after a fork or a reset.
void install()
{
    for (int sig : kSignals) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL)
            continue;
        struct sigaction sa {};
        sa.sa_handler = removeTempFilesAndReraise;
        sigemptyset(&sa.sa_mask);
        for (int other : kSignals)
            sigaddset(&sa.sa_mask, other); // one cleanup at a time
        sa.sa_flags = SA_RESTART;
        ::sigaction(sig, &sa, nullptr);
    }
}

} // namespace

int createRegisteredTempFile(std::string& pathTemplate, int suffixLength)
{
    if (pathTemplate.size() >= kMaxPath) {
        errno = ENAMETOOLONG;
        return -1;
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    install();
    int slot = -1;
    for (int i = 0; i < kSlots && slot < 0; ++i)
        if (!g_used[i].load(std::memory_order_relaxed))
            slot = i;
    if (slot < 0) {
        errno = EMFILE;
        return -1;
    }
    sigset_t block;
    sigset_t previous;
    sigemptyset(&block);
    for (int sig : kSignals)
        sigaddset(&block, sig);
    ::pthread_sigmask(SIG_BLOCK, &block, &previous);
    std::memcpy(g_paths[slot], pathTemplate.c_str(), pathTemplate.size() + 1);
    const int fd = ::mkostemps(g_paths[slot], suffixLength, O_CLOEXEC);
    const int err = errno;
    if (fd >= 0) {
        g_used[slot].store(true, std::memory_order_release);
        pathTemplate = g_paths[slot];
    }
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    errno = err;
    return fd;
}

void forgetTempFile(const std::string& path)
{
    std::lock_guard<std::mutex> lock(g_mutex);
    for (int i = 0; i < kSlots; ++i)
        if (g_used[i].load(std::memory_order_relaxed) && path == g_paths[i])
            g_used[i].store(false, std::memory_order_release);
}

int registeredTempFileCount()
{
    std::lock_guard<std::mutex> lock(g_mutex);
    int n = 0;
    for (int i = 0; i < kSlots; ++i)
        n += g_used[i].load(std::memory_order_relaxed) ? 1 : 0;
    return n;
}

} // namespace gp
