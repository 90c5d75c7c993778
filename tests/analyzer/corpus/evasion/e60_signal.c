// expect: privilege
typedef void (*handler)(int);
extern handler signal(int, handler);
static void on(int s) { (void)s; }
int main(void) { signal(2, on); return 0; }
