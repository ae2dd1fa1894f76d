# Shared part of cmake/toolchain-<target>.cmake: cross-compile pa against a
# Debian sysroot made by scripts/sysroot, and run target programs (try_run,
# ctest) under qemu-user. The including file sets PA_CROSS_TARGET,
# PA_CROSS_GNU (gcc prefix), PA_CROSS_MULTIARCH (Debian multiarch dir),
# PA_CROSS_QEMU and CMAKE_SYSTEM_PROCESSOR.
#
# Sysroot, first found wins: -DPA_SYSROOT=..., $PA_SYSROOT,
# ${PA_SYSROOT_DIR:-$HOME/.cache/pa-sysroots}/<target>.

set(CMAKE_SYSTEM_NAME Linux)

if(NOT PA_SYSROOT)
  if(DEFINED ENV{PA_SYSROOT} AND NOT "$ENV{PA_SYSROOT}" STREQUAL "")
    set(PA_SYSROOT "$ENV{PA_SYSROOT}")
  elseif(DEFINED ENV{PA_SYSROOT_DIR} AND NOT "$ENV{PA_SYSROOT_DIR}" STREQUAL "")
    set(PA_SYSROOT "$ENV{PA_SYSROOT_DIR}/${PA_CROSS_TARGET}")
  else()
    set(PA_SYSROOT "$ENV{HOME}/.cache/pa-sysroots/${PA_CROSS_TARGET}")
  endif()
endif()
if(NOT EXISTS "${PA_SYSROOT}/usr/include/stdio.h")
  message(FATAL_ERROR "No ${PA_CROSS_TARGET} sysroot at ${PA_SYSROOT}: "
                      "run scripts/sysroot ${PA_CROSS_TARGET}")
endif()
set(PA_SYSROOT "${PA_SYSROOT}" CACHE PATH "Sysroot for ${PA_CROSS_TARGET}" FORCE)
# try_compile() projects re-read this file without our cache: pass it on.
set(ENV{PA_SYSROOT} "${PA_SYSROOT}")

set(CMAKE_C_COMPILER ${PA_CROSS_GNU}-gcc)
set(CMAKE_SYSROOT "${PA_SYSROOT}")                   # adds --sysroot=...
set(CMAKE_LIBRARY_ARCHITECTURE ${PA_CROSS_MULTIARCH}) # usr/lib/<multiarch>

# Link-time lookup of indirect deps (libarchive -> libxml2 -> libicu ...).
set(_pa_rpl "-Wl,-rpath-link,${PA_SYSROOT}/lib/${PA_CROSS_MULTIARCH}")
string(APPEND _pa_rpl " -Wl,-rpath-link,${PA_SYSROOT}/usr/lib/${PA_CROSS_MULTIARCH}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_pa_rpl}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${_pa_rpl}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "${_pa_rpl}")

# find_library/find_path/find_package look only in the sysroot (so libiberty,
# which has no .pc file, is found as <sysroot>/usr/lib/<multiarch>/libiberty.a
# and <sysroot>/usr/include/libiberty/); programs come from the host.
set(CMAKE_FIND_ROOT_PATH "${PA_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg_check_modules(): only the target's .pc files, paths prefixed by sysroot.
unset(ENV{PKG_CONFIG_PATH})
set(ENV{PKG_CONFIG_LIBDIR}
    "${PA_SYSROOT}/usr/lib/${PA_CROSS_MULTIARCH}/pkgconfig:${PA_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${PA_SYSROOT}")

# Run target binaries under qemu. -L makes qemu look up the ELF interpreter and
# every absolute path the guest opens (ld.so's /lib/<multiarch>/...) in the
# sysroot first, so no LD_LIBRARY_PATH is needed.
find_program(PA_QEMU ${PA_CROSS_QEMU})
if(NOT PA_QEMU)
  message(FATAL_ERROR "${PA_CROSS_QEMU} not found: apt-get install qemu-user-static")
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR "${PA_QEMU};-L;${PA_SYSROOT}")
