#pragma once
// Shared by the libFuzzer harnesses: a failed check prints why and aborts, which
// libFuzzer reports as a crash and saves the input.
#include "core/base/errors.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

namespace gpfuzz {

[[noreturn]] inline void fail(const char* target, const std::string& what)
{
    std::fprintf(stderr, "\n%s: %s\n", target, what.c_str());
    std::fflush(stderr);
    std::abort();
}

inline std::string_view asText(const std::uint8_t* data, std::size_t size)
{
    return {reinterpret_cast<const char*>(data), size};
}

/// Runs f; gp::InputError is the documented failure and passes, anything else
/// that escapes is a bug.
template <class F>
void expectOnlyInputError(const char* target, const char* call, F&& f)
{
    try {
        f();
    } catch (const gp::InputError&) {
        // expected for bad input
    } catch (const std::exception& e) {
        fail(target, std::string(call) + " threw a non-InputError exception: " + e.what());
    } catch (...) {
        fail(target, std::string(call) + " threw a non-std exception");
    }
}

} // namespace gpfuzz
