// expect: pragma
_Pragma("weak helper")
int main(void) { return 0; }
