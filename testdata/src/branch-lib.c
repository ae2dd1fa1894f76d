/* branch-lib.c - a small shared library for the branch-stack fixture
 * (make-branch.sh): a second DSO whose functions branches land in. */
int lib_add(int a, int b);
int lib_mul(int a, int b);
int lib_step(int x);

int lib_add(int a, int b)
{
	return a + b;
}

int lib_mul(int a, int b)
{
	int r = 0;
	for (int i = 0; i < b; i++)
		r = lib_add(r, a);
	return r;
}

int lib_step(int x)
{
	return x & 1 ? lib_mul(x, 3) : lib_add(x, 7);
}
