// expect: asm_label
int main(void) { register long r __asm__("rsp"); return (int)r; }
