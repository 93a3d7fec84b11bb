#include "cli/command.h"
#include "cli/output_options.h"
#include "hw/device_db.h"
#include "hw/roofline.h"
#include "report/device_report.h"

namespace ridge::cli {

Command add_devices_command(CLI::App& parent) {
  struct Options {
    std::string spec, format = "table";
  };
  auto options = std::make_shared<Options>();
  auto* app = parent.add_subcommand("devices", "list the device database, or show a device's roofline in a power mode");
  app->footer(
      "Examples:\n"
      "  ridge devices\n"
      "  ridge devices -f csv\n"
      "  ridge devices show h100-sxm --format json\n"
      "  ridge devices show jetson-agx-orin-64gb:30W\n"
      "  ridge devices show jetson-agx-orin-64gb:gpu=918MHz,emc=2133MHz,cpu=8x1.5GHz\n"
      "Devices are devices/*.yaml on the search path ($RIDGE_DEVICE_PATH, ~/.config/ridge/devices,\n"
      "ridge's own devices/), 'host' (this machine, detected), or a path to a YAML file.");
  add_format_option(*app, options->format);
  auto* show = app->add_subcommand("show", "print the ceilings and ridge points of DEVICE[:MODE]");
  show->add_option("device", options->spec, "ID[:MODE], host, or path/to/device.yaml[:MODE]")->required();
  add_format_option(*show, options->format);
  return {app, [options, show] {
            if (!show->parsed()) {
              emit(report::device_list_document(hw::list_devices()), options->format);
              return 0;
            }
            auto [id, mode_text] = hw::split_device_and_mode(options->spec);
            auto device = hw::find_device(id);
            auto roofline = hw::roofline_for(device, hw::resolve_mode(device, mode_text));
            emit(report::roofline_document(device, roofline), options->format);
            return 0;
          }};
}

}  // namespace ridge::cli
