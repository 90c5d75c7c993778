// expect: include
/* a */ # /* b */ include /* c */ "/etc/hostname"
int main(void) { return 0; }
