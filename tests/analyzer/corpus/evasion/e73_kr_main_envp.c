// expect: main_envp no_prototype
#include <stdio.h>
int main(argc, argv, envp) int argc; char **argv; char **envp; { (void)argc; (void)argv; return puts(envp[0]) < 0; }
