// expect: pragma
_Pra\  
gma("redefine_extname harmless system")
int harmless(const char *);
int main(void) { return harmless("id"); }
