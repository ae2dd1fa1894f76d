# Cross-build pa for s390x (64-bit big-endian); tests run under qemu.
#   scripts/sysroot s390x && cmake -B build-s390x \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-s390x.cmake [-DPA_SYSROOT=...]
# (or just scripts/cross-build s390x). See toolchain-common.cmake.
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(PA_CROSS_TARGET s390x)
set(PA_CROSS_GNU s390x-linux-gnu)
set(PA_CROSS_MULTIARCH s390x-linux-gnu)
set(PA_CROSS_QEMU qemu-s390x-static)
include("${CMAKE_CURRENT_LIST_DIR}/toolchain-common.cmake")
