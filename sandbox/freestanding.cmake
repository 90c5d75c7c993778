# sandbox/freestanding.cmake: the build of a freestanding static program of
# the sandbox (the pooled child's waiter, the gVisor bridge shim), included
# by its folder's CMakeLists.txt: whatever the build type, no sanitizer, no
# stack protector, no libc, no start-up code (the program has its own
# _start). tg_freestanding_program(NAME SOURCE) adds the executable.
set_property(DIRECTORY PROPERTY COMPILE_OPTIONS -Wall -Wextra -Werror -O2 -ffreestanding
  -fno-builtin -fno-stack-protector -fno-asynchronous-unwind-tables -fno-unwind-tables
  -fno-pie -fno-lto -fno-sanitize=all -fcf-protection=none -fno-tree-loop-distribute-patterns
  -U_FORTIFY_SOURCE)
set_property(DIRECTORY PROPERTY LINK_OPTIONS "")
function(tg_freestanding_program name src)
  add_executable(${name} ${src})
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR})
  target_link_options(${name} PRIVATE -nostdlib -static -no-pie -fno-lto
    -fno-sanitize=all -Wl,-s -Wl,--build-id=none -Wl,-z,noexecstack)
endfunction()
