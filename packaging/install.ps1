# Install hookhost on Windows from its signed release: fetch the archive, check SHA256SUMS (against
# the digest this script carries for the release it was published with, and against the release
# key with minisign.exe where it is installed), check the archive against SHA256SUMS, check that
# the binary runs — and only then put hookhost.exe and hookhost-send.exe in place and on the
# user's PATH. Any mismatch stops it with one message, and nothing is installed.
#
#   irm https://github.com/hookhost/hookhost/releases/latest/download/install.ps1 | iex
#   .\install.ps1 [-Version V] [-From URL|DIR] [-BinDir DIR] [-NoPathUpdate]
#
# Windows PowerShell 5.1 or PowerShell 7.
param(
    [string]$Version = $env:HOOKHOST_VERSION,
    [string]$From = $env:HOOKHOST_INSTALL_FROM,
    [string]$BinDir = $env:HOOKHOST_BIN_DIR,
    [switch]$NoPathUpdate
)
$ErrorActionPreference = 'Stop'
Set-StrictMode -Version 3

# Stamped by `cargo xtask dist` (packaging/install.ps1 in the repository carries the release key).
$RELEASE_VERSION = '0.1.0'
$RELEASE_BASE_URL = 'https://github.com/hookhost/hookhost/releases/download/v0.1.0'
$RELEASE_KEY = 'RWQ5tnL+ayY0dFTlXLB7SLA2FGP79eS7av2Qi4mKvJ0aEvpeGCbaMJ57'
$RELEASE_SUMS_SHA256 = ''

$Downloads = 'https://github.com/hookhost/hookhost/releases/download'

function Fail([string]$Message) {
    Write-Host "hookhost-install: error: $Message" -ForegroundColor Red
    Write-Host 'hookhost-install: nothing was installed'
    throw "hookhost-install: $Message"
}

if (-not $Version) { $Version = $RELEASE_VERSION }
$Version = $Version.TrimStart('v')
if ($Version -notmatch '^[0-9A-Za-z.+-]+$') { Fail "-Version $Version is not a version (e.g. $RELEASE_VERSION)" }
if (-not $From) {
    if ($Version -eq $RELEASE_VERSION) { $From = $RELEASE_BASE_URL } else { $From = "$Downloads/v$Version" }
}
if (-not $BinDir) { $BinDir = Join-Path $env:LOCALAPPDATA 'Programs\hookhost\bin' }

# Windows on Arm runs the x64 build.
$Target = 'x86_64-pc-windows-gnu'
$Archive = "hookhost-$Version-$Target.zip"

$Tmp = Join-Path ([System.IO.Path]::GetTempPath()) ("hookhost-install-" + [System.Guid]::NewGuid())
New-Item -ItemType Directory -Path $Tmp | Out-Null
try {
    function Fetch([string]$Name) {
        $dest = Join-Path $Tmp $Name
        if (Test-Path -LiteralPath $From -PathType Container) {
            $src = Join-Path $From $Name
            if (-not (Test-Path -LiteralPath $src -PathType Leaf)) { Fail "${src}: no such file (is $From a hookhost $Version release?)" }
            Copy-Item -LiteralPath $src -Destination $dest
        } else {
            try {
                [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12
                Invoke-WebRequest -UseBasicParsing -Uri "$From/$Name" -OutFile $dest
            } catch {
                Fail "cannot download $From/${Name}: $($_.Exception.Message)"
            }
        }
        return $dest
    }
    function Sha256([string]$Path) { (Get-FileHash -Algorithm SHA256 -LiteralPath $Path).Hash.ToLowerInvariant() }

    $Sums = Fetch 'SHA256SUMS'
    $Sig = Fetch 'SHA256SUMS.minisig'
    $Pinned = $false
    if ($Version -eq $RELEASE_VERSION -and $RELEASE_SUMS_SHA256) {
        if ((Sha256 $Sums) -ne $RELEASE_SUMS_SHA256) { Fail "SHA256SUMS from $From is not the one of hookhost $Version this installer was published with: a damaged or altered download" }
        $Pinned = $true
    }
    $Minisign = Get-Command minisign -ErrorAction SilentlyContinue
    if ($Minisign) {
        & $Minisign.Source -V -q -P $RELEASE_KEY -m $Sums -x $Sig *> $null
        if ($LASTEXITCODE -ne 0) { Fail "SHA256SUMS from $From does not carry a valid signature of hookhost's release key ${RELEASE_KEY}: a damaged or altered download" }
    } elseif (-not $Pinned) {
        Fail "cannot check the signature of hookhost $Version without minisign: install it (winget install jedisct1.minisign, scoop install minisign), or use the installer published with that release"
    } else {
        Write-Host 'hookhost-install: minisign is not installed: SHA256SUMS checked against the digest this installer carries'
    }

    $Expected = $null
    foreach ($line in Get-Content -LiteralPath $Sums) {
        $parts = $line -split '\s+', 2
        if ($parts.Count -eq 2 -and $parts[1] -eq $Archive) { $Expected = $parts[0] }
    }
    if (-not $Expected) { Fail "hookhost $Version has no build for $Target ($Archive is not in SHA256SUMS)" }
    $Zip = Fetch $Archive
    if ((Sha256 $Zip) -ne $Expected) { Fail "$Archive does not match SHA256SUMS: a damaged or altered download" }

    $Unpacked = Join-Path $Tmp 'unpacked'
    Expand-Archive -LiteralPath $Zip -DestinationPath $Unpacked
    $Dir = Join-Path $Unpacked "hookhost-$Version-$Target"
    foreach ($b in 'hookhost.exe', 'hookhost-send.exe') {
        if (-not (Test-Path -LiteralPath (Join-Path $Dir $b) -PathType Leaf)) { Fail "$Archive has no $b" }
    }
    & (Join-Path $Dir 'hookhost.exe') --version *> $null
    if ($LASTEXITCODE -ne 0) { Fail "the $Target build does not run on this machine" }

    New-Item -ItemType Directory -Force -Path $BinDir | Out-Null
    foreach ($b in 'hookhost.exe', 'hookhost-send.exe') {
        Copy-Item -LiteralPath (Join-Path $Dir $b) -Destination (Join-Path $BinDir ".$b.new")
    }
    foreach ($b in 'hookhost.exe', 'hookhost-send.exe') {
        Move-Item -Force -LiteralPath (Join-Path $BinDir ".$b.new") -Destination (Join-Path $BinDir $b)
    }
    Write-Host "hookhost-install: installed hookhost $Version ($Target) in $BinDir"

    $UserPath = [Environment]::GetEnvironmentVariable('Path', 'User')
    if (-not $UserPath) { $UserPath = '' }
    if (($UserPath -split ';') -notcontains $BinDir) {
        if ($NoPathUpdate) {
            Write-Host "hookhost-install: $BinDir is not on your PATH: add it to use hookhost by name"
        } else {
            [Environment]::SetEnvironmentVariable('Path', (($UserPath.TrimEnd(';'), $BinDir) -join ';').TrimStart(';'), 'User')
            $env:Path = "$env:Path;$BinDir"
            Write-Host "hookhost-install: added $BinDir to your user PATH (new terminals see it)"
        }
    }
    Write-Host 'hookhost-install: next: hookhost --help, and docs/INTEGRATIONS.md to wire your agent'
} finally {
    Remove-Item -Recurse -Force -LiteralPath $Tmp -ErrorAction SilentlyContinue
}
