; Inno Setup recipe for PlayTrace on Windows: an installer (dist\PlayTrace-<version>-setup.exe) of the
; PyInstaller one-folder build in dist\playtrace\. Build on Windows, from the repository root:
;
;   .venv-build\Scripts\pyinstaller --noconfirm packaging\pyinstaller\playtrace.spec
;   iscc /DAppVersion=0.1.0 packaging\windows\playtrace.iss
;
; Paths below are relative to this file's folder. The installer puts the folder under Program Files
; (or the user's programs folder when installed without administrator rights), adds a Start-menu entry
; and an uninstaller. Sign dist\playtrace\playtrace.exe and the installer with signtool when a
; certificate is available (SignTool= below, configured in the Inno Setup IDE or with iscc /S).

#ifndef AppVersion
  #define AppVersion "0.0.0"
#endif

[Setup]
; The AppId identifies PlayTrace to Windows' uninstaller: keep it the same across versions.
AppId={{E038ECE8-D73E-4930-B2FF-4618C78A232C}
AppName=PlayTrace
AppVersion={#AppVersion}
AppVerName=PlayTrace {#AppVersion}
AppPublisher=PlayTrace developers
DefaultDirName={autopf}\PlayTrace
DefaultGroupName=PlayTrace
DisableProgramGroupPage=yes
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=PlayTrace-{#AppVersion}-setup
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
UninstallDisplayIcon={app}\playtrace.exe

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "..\..\dist\playtrace\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\PlayTrace"; Filename: "{app}\playtrace.exe"
Name: "{autodesktop}\PlayTrace"; Filename: "{app}\playtrace.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\playtrace.exe"; Description: "{cm:LaunchProgram,PlayTrace}"; Flags: nowait postinstall skipifsilent
