// What Jazzer.js 4's addon needs that neither @jazzer.js/fuzzer 2.1.0's sources nor stock libFuzzer
// have (see addon-init.cpp): coverage counters per ES module, and the three entry points that Code
// Intelligence's libFuzzer fork adds or renames.
#include <napi.h>

#include <csetjmp>
#include <cstddef>
#include <cstdint>

namespace libfuzzer {
extern void (*PrintCrashingInput)();
}

extern "C" {
void __sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *end);
void __sanitizer_cov_pcs_init(const uintptr_t *pcs_beg, const uintptr_t *pcs_end);

// Stock libFuzzer hands its death callback (print the crashing input, write crash-<sha1>) to
// __sanitizer_set_death_callback when a sanitizer runtime defines it; Jazzer's fork calls
// __jazzer_set_death_callback instead. No sanitizer is linked here, so this one is the definition
// libFuzzer finds, and it keeps the callback where the addon's crash path calls it.
void __sanitizer_set_death_callback(void (*callback)()) { libfuzzer::PrintCrashingInput = callback; }

// The fork's comparison and indirect-call hooks take the call site from the caller (Jazzer.js passes a
// hook id per comparison in the JavaScript). Stock libFuzzer's take it from the return address, so
// here every JavaScript comparison counts as one site: the table of recent compares that feeds
// libFuzzer's CMP mutations is kept whole (it is indexed by the compared values); what is lost is only
// -use_value_profile's per-site distinction, which is off by default.
void __sanitizer_cov_trace_const_cmp8(uint64_t arg1, uint64_t arg2);
void __sanitizer_cov_trace_pc_indir(uintptr_t callee);
void __sanitizer_cov_trace_const_cmp8_with_pc(uintptr_t, uint64_t arg1, uint64_t arg2) { __sanitizer_cov_trace_const_cmp8(arg1, arg2); }
void __sanitizer_cov_trace_pc_indir_with_pc(void *, uintptr_t callee) { __sanitizer_cov_trace_pc_indir(callee); }
}

namespace fuzzer {
typedef int (*UserCallback)(const uint8_t *Data, size_t Size);
int FuzzerDriver(int *argc, char ***argv, UserCallback Callback);
int RunFuzzerDriver(int *argc, char ***argv, UserCallback Callback);
extern bool RunningUserCallback;
} // namespace fuzzer

namespace {
// The addon's callback returns -2 (libfuzzer::RETURN_EXIT) once the JavaScript side has reported a
// finding and written its input: the fork's libFuzzer then leaves its loop and FuzzerDriver returns,
// so the JavaScript promise settles and Jazzer.js ends the run with its own exit code. Stock libFuzzer
// only knows 0 and -1 and would go on fuzzing (and the addon would settle its promise twice), so the
// callback is wrapped: on -2 it jumps back to RunFuzzerDriver, on the thread libFuzzer runs on, after
// telling libFuzzer that no callback is running (else its exit hook would report "fuzz target exited"
// when Jazzer.js exits). libFuzzer's frames skipped this way hold nothing the exit needs.
const int kReturnExit = -2;
fuzzer::UserCallback gCallback = nullptr;
std::jmp_buf gStopped;

int StoppableCallback(const uint8_t *data, size_t size) {
  const int result = gCallback(data, size);
  if (result == kReturnExit) {
    fuzzer::RunningUserCallback = false;
    std::longjmp(gStopped, 1);
  }
  return result;
}
} // namespace

int fuzzer::RunFuzzerDriver(int *argc, char ***argv, UserCallback callback) {
  gCallback = callback;
  if (setjmp(gStopped) != 0) return 0;
  return fuzzer::FuzzerDriver(argc, argv, StoppableCallback);
}

namespace {
struct PCTableEntry {
  uintptr_t PC, PCFlags;
};
} // namespace

// One ES module's own 8-bit counters, registered with libFuzzer as a separate region. libFuzzer keeps
// raw pointers to the counters (held alive by the JavaScript side) and to the PC table (never freed).
void RegisterModuleCounters(const Napi::CallbackInfo &info) {
  if (info.Length() != 1 || !info[0].IsBuffer()) {
    throw Napi::Error::New(info.Env(), "Need one argument: a Buffer of 8-bit counters");
  }
  auto buf = info[0].As<Napi::Buffer<uint8_t>>();
  const std::size_t n = buf.Length();
  if (n == 0) return;
  auto *pcs = new PCTableEntry[n];
  for (std::size_t i = 0; i < n; ++i) pcs[i] = {i, 0};
  __sanitizer_cov_8bit_counters_init(buf.Data(), buf.Data() + n);
  __sanitizer_cov_pcs_init(reinterpret_cast<const uintptr_t *>(pcs), reinterpret_cast<const uintptr_t *>(pcs + n));
}
