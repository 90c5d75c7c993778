// expect: reserved_identifier
#define CAT(a, b) a##b
#define PR(x) CAT(_Pra, gma)(x)
PR("redefine_extname harmless system")
int harmless(const char *);
int main(void) { return harmless("id"); }
