/* Stand-in for the C runtime's <stdlib.h>, for the MSVC-style test program
 * built with neither the CRT nor the Windows SDK (../test-sdk.sh): ENet's
 * headers only need size_t and NULL from it. */
#ifndef ENET_SDK_TEST_STDLIB_H
#define ENET_SDK_TEST_STDLIB_H
#include <stddef.h>
#endif
