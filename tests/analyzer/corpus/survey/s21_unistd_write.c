// expect: pass
/* refused before issue 14 -- include + file_access: <unistd.h> refused, read/write refused even on 0-2 */
/* survey: unistd.h write to stdout and read from stdin */
#include <string.h>
#include <unistd.h>
int main(void)
{
	char buf[256];
	ssize_t n = read(0, buf, sizeof(buf));
	const char *msg = "{\"ok\":true}\n";
	(void)n;
	if (write(1, msg, strlen(msg)) < 0)
		return 1;
	return 0;
}
