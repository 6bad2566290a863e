package nni.itest.k8s.emulator;

import java.io.IOException;
import java.nio.file.Path;

/** How the emulated node mounts an {@code azureFile} volume (the Azure Files CSI driver's {@code mount -t cifs}). */
public interface AzureFileMounts {

    /**
     * @param account the storage account, from the volume's Secret ({@code azurestorageaccountname})
     * @param key     its key, from the Secret ({@code azurestorageaccountkey})
     * @param share   the volume's {@code shareName}
     * @return the local folder that is the share
     * @throws IOException as the mount fails (a wrong key: permission denied)
     */
    Path mount(String account, String key, String share) throws IOException;
}
