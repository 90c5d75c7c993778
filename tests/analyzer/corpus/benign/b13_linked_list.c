// expect: pass
/* Reverse the lines of stdin using a linked list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	char *text;
	struct node *next;
};

static void push(struct node **head, const char *s)
{
	struct node *n = malloc(sizeof(*n));
	if (!n)
		exit(1);
	n->text = strdup(s);
	if (!n->text)
		exit(1);
	n->next = *head;
	*head = n;
}

int main(void)
{
	char line[1024];
	struct node *head = NULL, *n;

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		push(&head, line);
	}
	while (head) {
		n = head;
		head = head->next;
		puts(n->text);
		free(n->text);
		free(n);
	}
	return 0;
}
