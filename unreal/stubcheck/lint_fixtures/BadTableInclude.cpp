// Breaks table-include: astral_bench.hpp without AstralApi.h before it.
#include "CoreMinimal.h"
#include "astral_bench.hpp" // expect: table-include

int32 CountSomething()
{
	return 0;
}
