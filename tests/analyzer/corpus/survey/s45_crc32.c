// expect: pass
/* survey: CRC-32 with a computed table */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	uint32_t table[256], crc = 0xFFFFFFFFu;
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
	const char *s = "123456789";
	for (size_t i = 0; i < strlen(s); i++)
		crc = table[(crc ^ (uint8_t)s[i]) & 0xFF] ^ (crc >> 8);
	printf("{\"crc\":%u}\n", crc ^ 0xFFFFFFFFu);
	return 0;
}
