// Jazzer.js's native addon, built here from the C++ sources that @jazzer.js/fuzzer 2.1.0 publishes on
// npm (4.0.0 publishes only prebuilt binaries, and its Linux one needs glibc 2.38), linked against
// Debian's stock libFuzzer (libclang-rt-16-dev) instead of Code Intelligence's patched fork.
// What 4.0.0's JavaScript asks of the addon beyond 2.1.0 is `registerModuleCounters` (coverage of
// ES modules, which is all of this project); the two differences from stock libFuzzer are the death
// callback and the comparison hooks
// the fork added (libfuzzer-shims.cpp).
#include <napi.h>

// Everything addon.cpp includes, first: the rename of its Init below must reach no header
// (std::ios_base::Init is one).
#include <iostream>
#include "fuzzing_async.h"
#include "fuzzing_sync.h"
#include "shared/callbacks.h"
#include "shared/libfuzzer.h"
#include "utils.h"

#pragma push_macro("NODE_API_MODULE")
#undef NODE_API_MODULE
#define NODE_API_MODULE(modname, regfunc)
#define Init JazzerInit
#include "addon.cpp" // @jazzer.js/fuzzer 2.1.0's module entry, unchanged
#undef Init
#pragma pop_macro("NODE_API_MODULE")

void RegisterModuleCounters(const Napi::CallbackInfo &info);

static Napi::Object InitWithModuleCounters(Napi::Env env, Napi::Object exports) {
  JazzerInit(env, exports);
  exports["registerModuleCounters"] = Napi::Function::New<RegisterModuleCounters>(env);
  return exports;
}

NODE_API_MODULE(jazzerjs, InitWithModuleCounters)
