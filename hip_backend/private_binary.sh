# Sourced from the repository root by the scripts that replay or fit
# (validate.sh, validate_calls.sh, machine_profile.sh).
#   private_binary PREBUILT TARGET DEST
# puts a tool's binary at DEST: PREBUILT when the caller named one (UMSIM_BIN,
# UMSIM_FIT_BIN; an absolute path), else the one `./bazelw build TARGET` makes.
# A private copy, because another build may replace bazel-bin while it runs.
private_binary() {
  local prebuilt=$1 target=$2 dest=$3
  if [[ -z $prebuilt ]]; then
    ./bazelw build "$target" >&2
    prebuilt=bazel-bin/${target#//}
    prebuilt=${prebuilt/://}
  fi
  [[ -x $prebuilt ]] || { echo "private_binary: $prebuilt is not an executable" >&2; return 1; }
  cp "$prebuilt" "$dest"
}
