// expect: pragma not_allowed
// one pass: the refused directive is blanked and the rest of the file is still checked
#pragma redefine_extname harmless system
int harmless(const char *);
int main(void) { return harmless("id"); }
