// Stand-in for UObject/ScriptMacros.h, which every generated header includes.
#pragma once

#include "UObject/ObjectMacros.h"
