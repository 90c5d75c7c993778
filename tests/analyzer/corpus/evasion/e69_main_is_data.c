// expect: redefinition
const unsigned char main[] = { 0x31, 0xc0, 0xc3 };
