// The declarations of compiler-rt's lib/fuzzer/FuzzerDefs.h that Jazzer.js's addon uses (Debian's
// libclang-rt-16-dev ships the library, not its private headers): libFuzzer's entry point,
// fuzzer::FuzzerDriver(int*, char***, int (*)(unsigned char const*, unsigned long)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fuzzer {
typedef int (*UserCallback)(const uint8_t *Data, size_t Size);
int FuzzerDriver(int *argc, char ***argv, UserCallback Callback);
// The addon's call of FuzzerDriver goes through this one (libfuzzer-shims.cpp), which gives stock
// libFuzzer the fork's "the callback returned -2: stop fuzzing and return" behaviour.
int RunFuzzerDriver(int *argc, char ***argv, UserCallback Callback);
} // namespace fuzzer

#define FuzzerDriver RunFuzzerDriver
