@echo off
rem Runs the Astral Automation tests headless and fails if any fails.
rem Usage: run_automation.bat UNREAL_EDITOR_CMD PROJECT.uproject [FILTER]
rem   UNREAL_EDITOR_CMD  e.g. "C:\Program Files\Epic Games\UE_5.7\Engine\Binaries\Win64\UnrealEditor-Cmd.exe"
rem   FILTER             test name prefix, default Astral (all of them)
setlocal
if "%~2"=="" (
  echo usage: run_automation.bat UNREAL_EDITOR_CMD PROJECT.uproject [FILTER]
  exit /b 2
)
set "EDITOR=%~1"
set "PROJECT=%~f2"
set "FILTER=%~3"
if "%FILTER%"=="" set "FILTER=Astral"
set "REPORT=%~dp2Saved\Automation\Astral"
set "LOG=%REPORT%\editor.log"
if not exist "%REPORT%" mkdir "%REPORT%"

"%EDITOR%" "%PROJECT%" -ExecCmds="Automation RunTests %FILTER%; Quit" -unattended -nullrhi -nopause -nosplash -NoSound -stdout -FullStdOutLogOutput -ReportExportPath="%REPORT%" > "%LOG%" 2>&1

rem The editor's exit code does not reflect test results: read them.
findstr /R /C:"Result={Fail" "%LOG%" >nul
if not errorlevel 1 (
  echo run_automation: a test failed ^(log: %LOG%^)
  exit /b 1
)
findstr /R /C:"Test Completed.*Result={Success" /C:"Test Completed.*Result={Passed" "%LOG%" >nul
if errorlevel 1 (
  echo run_automation: no test completed ^(log: %LOG%^)
  exit /b 1
)
findstr /C:"recall@" /C:"p50 " "%LOG%"
echo run_automation: passed ^(report: %REPORT%\index.json^)
exit /b 0
