// expect: pass
// output: 3
// digraphs (<: :> <% %> %:) are tokens in C95 and later
%:include <stdio.h>
int main(void)
<%
	int a<:2:> = <% 1, 2 %>;
	printf("%d\n", a<:0:> + a<:1:>);
	return 0;
%>
