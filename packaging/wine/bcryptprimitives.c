/* A stand-in for Windows' bcryptprimitives.dll, for running hookhost's Windows build under
 * Wine 8 (Debian 12's), which lacks it. Rust's standard library (1.78 and later) gets its
 * random bytes from ProcessPrng there; this one asks RtlGenRandom (advapi32's SystemFunction036),
 * which Wine has. Used by `cargo xtask smoke` only: it is installed into the smoke test's own
 * Wine prefix and never shipped. Newer Wine (9.0+) has the real one.
 *
 *   x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll bcryptprimitives.c bcryptprimitives.def -ladvapi32
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
