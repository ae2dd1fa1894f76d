# Cross-build pa for i386 (32-bit little-endian); tests run under qemu.
#   scripts/sysroot i386 && cmake -B build-i386 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-i386.cmake [-DPA_SYSROOT=...]
# (or just scripts/cross-build i386). See toolchain-common.cmake.
set(CMAKE_SYSTEM_PROCESSOR i686)
set(PA_CROSS_TARGET i386)
set(PA_CROSS_GNU i686-linux-gnu)
set(PA_CROSS_MULTIARCH i386-linux-gnu)
set(PA_CROSS_QEMU qemu-i386-static)
include("${CMAKE_CURRENT_LIST_DIR}/toolchain-common.cmake")
