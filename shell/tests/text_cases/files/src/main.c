#include <stdio.h>
int main(void) {
    printf("hello\n"); // TODO: greet
    return 0;
}
