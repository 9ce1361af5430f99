#pragma once
// Storage per thread for the engine's small caches. Native builds may run
// requests on several threads; the WebAssembly module has one thread, and
// there clang 14 cannot link thread-local storage into a module that uses
// bulk memory without atomics (wasm-ld: "'atomics' feature must be used in
// order to use thread-local storage"), so it is plain static storage.
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define CALIPER_PER_THREAD
#else
#define CALIPER_PER_THREAD thread_local
#endif
