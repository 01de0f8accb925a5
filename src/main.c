#include <stdio.h>
int main(void) { puts("vx " VX_VERSION); return 0; }
