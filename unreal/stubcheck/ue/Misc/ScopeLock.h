// Stand-in for Unreal's FScopeLock (Misc/ScopeLock.h). Not Unreal code.
#pragma once

#include "HAL/CriticalSection.h"

class FScopeLock
{
public:
	explicit FScopeLock(FCriticalSection* InSynchObject) : SynchObject(InSynchObject) { SynchObject->Lock(); }
	~FScopeLock() { SynchObject->Unlock(); }
	FScopeLock(const FScopeLock&) = delete;
	FScopeLock& operator=(const FScopeLock&) = delete;

private:
	FCriticalSection* SynchObject;
};
