// expect: stmt_expr
int main(void) { int x = ({ int y = 2; y * 2; }); return x - 4; }
