// expect: include
%:include "/etc/passwd"
int main(void) { return 0; }
