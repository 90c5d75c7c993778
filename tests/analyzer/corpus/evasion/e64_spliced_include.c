// expect: include
#inc\
lude "/etc/passwd"
int main(void) { return 0; }
