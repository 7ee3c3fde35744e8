/*
 * A stand-in bcryptprimitives.dll for running Rust test binaries under
 * wine 8.0, which lacks that DLL: Rust's std imports ProcessPrng from it
 * for random numbers (HashMap seeds). For tests only; never shipped.
 *
 * ProcessPrng fills the buffer with random bytes and always succeeds; the
 * bytes come from advapi32's RtlGenRandom (exported as SystemFunction036).
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036 (PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI
ProcessPrng (PBYTE data, SIZE_T length)
{
    while (length > 0)
    {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG) length;

        if (! SystemFunction036 (data, chunk))
          return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
