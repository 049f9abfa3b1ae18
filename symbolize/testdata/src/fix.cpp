// C++ fixture: namespaces, class and function templates, lambdas,
// operators, constructors/destructors, std::function.
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace fx {
namespace inner {
template <typename T, int N> struct Box {
	T v[N];
	template <typename F> T fold(F f) const
	{
		T acc{};
		for (int i = 0; i < N; i++)
			acc = f(acc, v[i]);
		return acc;
	}
	T operator[](int i) const { return v[i % N]; }
};
} // namespace inner

struct Shape {
	virtual ~Shape() {}
	virtual double area() const = 0;
};
struct Sq : Shape {
	double s;
	explicit Sq(double s) : s(s) {}
	double area() const override { return s * s; }
};

__attribute__((noinline)) long count_words(const std::map<std::string, long> &m)
{
	long n = 0;
	for (auto &kv : m)
		n += kv.second;
	return n;
}
} // namespace fx

int main(int argc, char **)
{
	fx::inner::Box<long, 4> b{{1, 2, 3, argc}};
	auto add = [](long a, long x) { return a + x; };
	std::function<long(long)> sq = [&](long x) { return x * b[1]; };
	std::map<std::string, long> m{{"a", 1}, {"b", 2}};
	std::vector<fx::Shape *> v{new fx::Sq(2)};
	double a = 0;
	for (auto *s : v) {
		a += s->area();
		delete s;
	}
	return (int)(b.fold(add) + sq(3) + fx::count_words(m) + (long)a) & 1;
}
