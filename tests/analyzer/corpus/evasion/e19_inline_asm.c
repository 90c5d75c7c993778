// expect: inline_asm
int main(void) { long r; __asm__ volatile("mov $60, %%rax; syscall" : "=a"(r)); return (int)r; }
